/** A server-sent event as it came: its text, its name, and its data (the `data:` lines joined). */
export interface SseEvent {
  raw: string
  name: string | undefined
  data: string
}

/**
 * The events of a stream of server-sent events, each with its text. The
 * stream's bytes and pace are its producer's to bound (stream() bounds a
 * provider's); a last event without its blank line is not an event.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder()
  const separator = /\r?\n\r?\n/g
  let buffer = ''
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      // Only the new text is searched (and the few characters before it a separator may begin in).
      separator.lastIndex = Math.max(0, buffer.length - 3)
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
      while (separator.exec(buffer) !== null) {
        const raw = buffer.slice(0, separator.lastIndex)
        buffer = buffer.slice(raw.length)
        separator.lastIndex = 0
        const event = eventOf(raw)
        if (event) yield event
      }
      if (done) return
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

function eventOf(raw: string): SseEvent | undefined {
  let name: string | undefined
  const data: string[] = []
  for (const line of raw.split(/\r?\n/)) {
    const field = /^([^:]*):? ?(.*)$/.exec(line)
    if (field?.[1] === 'event') name = field[2]
    else if (field?.[1] === 'data') data.push(field[2] ?? '')
  }
  return data.length > 0 || name !== undefined ? { raw, name, data: data.join('\n') } : undefined
}
