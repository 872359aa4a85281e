// Reading answers as a client does, for the tests of the servers here:
// a body read to its end or to the error that cut it, and its server-sent
// events as they came.

/** One server-sent event: its name (`event:`), when it has one, and its data. */
export interface SentEvent {
  event?: string
  data: string
}

/** A body read to its end, or as far as it came before the connection broke (`error`). */
export async function readToEnd(res: Response): Promise<{ text: string; error?: unknown }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let text = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return { text: text + decoder.decode() }
      text += decoder.decode(value, { stream: true })
    }
  } catch (error) {
    return { text, error }
  }
}

/**
 * The complete events of a stream's text, each ended by a blank line (LF or CRLF, as the spec allows); what follows
 * the last blank line is no event yet, and is left out.
 */
export function sentEvents(text: string): SentEvent[] {
  const blocks = text.split(/\r?\n\r?\n/)
  blocks.pop()
  return blocks.map((block) => {
    const event: SentEvent = { data: '' }
    const data: string[] = []
    for (const line of block.split(/\r?\n/)) {
      const [, field, value = ''] = /^([^:]*):? ?(.*)$/.exec(line) ?? []
      if (field === 'event') event.event = value
      else if (field === 'data') data.push(value)
    }
    event.data = data.join('\n')
    return event
  })
}

/** Reads a stream until its first complete event has come, then lets it go: what a stalled stream shows. */
export async function firstEvent(res: Response): Promise<SentEvent> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) throw new Error(`the stream ended before its first event: ${text}`)
    text += decoder.decode(value, { stream: true })
    const [event] = sentEvents(text)
    if (event) {
      await reader.cancel()
      return event
    }
  }
}
