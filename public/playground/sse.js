// Server-sent events read from a fetch() answer's body: the chat stream's
// chunks (`data:` only) and the service's own events (`event: step`,
// `parsed`, `summary`, `error`), each as `{name, data}` with the data parsed
// as JSON when it is JSON.

/** An event whose lines run past this many characters is no event of ours: the reading stops there. */
const MAX_EVENT_CHARS = 1 << 20

/** The events of `body` (a ReadableStream of bytes), in order, until it ends. */
export async function* sseEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  let event = { name: undefined, data: [] }
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += value
      const lines = buffer.split(/\r?\n/)
      buffer = lines.pop()
      if (buffer.length > MAX_EVENT_CHARS)
        throw new Error(`an event of the stream is over ${MAX_EVENT_CHARS} characters`)
      for (const line of lines) {
        if (line === '') {
          if (event.data.length > 0) yield parsed(event)
          event = { name: undefined, data: [] }
        } else if (line.startsWith('event:')) event.name = line.slice(6).trim()
        else if (line.startsWith('data:')) event.data.push(line.slice(5).replace(/^ /, ''))
      }
    }
    if (event.data.length > 0) yield parsed(event)
  } finally {
    reader.cancel().catch(() => {})
  }
}

function parsed({ name, data }) {
  const text = data.join('\n')
  if (text.trim() === '[DONE]') return { name: name ?? 'done', data: null }
  try {
    return { name, data: JSON.parse(text) }
  } catch {
    return { name, data: text }
  }
}
