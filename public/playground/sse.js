// Server-sent events read from a fetch() answer's body: the chat stream's
// chunks (`data:` only) and the service's own events (`event: step`,
// `parsed`, `summary`, `error`), each as `{name, data}` with the data parsed
// as JSON when it is JSON.

/**
 * Characters of one event at most, its lines and the line still open
 * counted together: past them it is no event of ours, and the reading stops.
 */
export const MAX_EVENT_CHARS = 1 << 20

/** The reading stopped on an event past MAX_EVENT_CHARS; `code` names it as a service error's would. */
export class EventTooLarge extends Error {
  code = 'EVENT_TOO_LARGE'
  constructor() {
    super(`an event of the stream is over ${MAX_EVENT_CHARS} characters: the reading stopped there`)
  }
}

/** The events of `body` (a ReadableStream of bytes), in order, until it ends. */
export async function* sseEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  let event = fresh()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += value
      const lines = buffer.split(/\r?\n/)
      buffer = lines.pop()
      for (const line of lines) {
        if (line === '') {
          if (event.data.length > 0) yield parsed(event)
          event = fresh()
          continue
        }
        // Every line of the event counts, with its newline: many short lines add up as one long one.
        event.chars += line.length + 1
        if (event.chars > MAX_EVENT_CHARS) throw new EventTooLarge()
        if (line.startsWith('event:')) event.name = line.slice(6).trim()
        else if (line.startsWith('data:')) event.data.push(line.slice(5).replace(/^ /, ''))
      }
      if (event.chars + buffer.length > MAX_EVENT_CHARS) throw new EventTooLarge()
    }
    if (event.data.length > 0) yield parsed(event)
  } finally {
    reader.cancel().catch(() => {})
  }
}

const fresh = () => ({ name: undefined, data: [], chars: 0 })

function parsed({ name, data }) {
  const text = data.join('\n')
  if (text.trim() === '[DONE]') return { name: name ?? 'done', data: null }
  try {
    return { name, data: JSON.parse(text) }
  } catch {
    return { name, data: text }
  }
}
