import type { ByteLimit } from '../egress'
import { ServiceError } from '../errors'
import { errorEvent } from '../llm'
import { isObject } from '../json'
import { addUsage, usageOf } from './response'
import type { ChatUsage } from './response'
import { readableOf } from '../chat'
import { chatEvents, dataOf, isDone } from './sse'

/** The service's own events of a chat stream (lib/chat/stream.ts): OpenAI's clients know none of them. */
const OURS = new Set(['step', 'parsed', 'summary'])

/**
 * A chat's event stream as OpenAI streams chat completions: its chunks,
 * `[DONE]` and a failure's `error` event as they come, the service's own
 * events left out. Each tool round's usage (its `step` event's) is added
 * to the usage chunk, which goes out only when the caller asked for it
 * (`usageAsked`: its `stream_options.include_usage`): the chat asks the
 * provider for usage always, for its summary.
 */
export function chatChunks(
  chat: ReadableStream<Uint8Array>,
  limit: ByteLimit,
  usageAsked: boolean,
): ReadableStream<Uint8Array> {
  return readableOf(chunks(chat, limit, usageAsked))
}

async function* chunks(
  chat: ReadableStream<Uint8Array>,
  limit: ByteLimit,
  usageAsked: boolean,
): AsyncGenerator<string> {
  let steps: ChatUsage | undefined
  for await (const event of chatEvents(chat, limit)) {
    if (event instanceof ServiceError) return yield errorEvent(event.code, event.message)
    if (event.name === 'error') return yield event.raw
    const data = dataOf(event)
    if (event.name !== undefined && OURS.has(event.name)) {
      const step = isObject(data?.step) ? data.step : undefined
      if (step?.usage) steps = steps ? addUsage(steps, usageOf(step.usage)) : usageOf(step.usage)
      continue
    }
    if (data?.usage && !usageAsked) {
      // OpenAI's own usage chunk has no choices: it goes; a provider's usage on a chunk of text goes from it.
      if (Array.isArray(data.choices) && data.choices.length === 0) continue
      const { usage: _unasked, ...chunk } = data
      yield `data: ${JSON.stringify(chunk)}\n\n`
      continue
    }
    if (steps && data?.usage) {
      yield `data: ${JSON.stringify({ ...data, usage: addUsage(steps, usageOf(data.usage)) })}\n\n`
      continue
    }
    yield event.raw
    if (isDone(event)) return
  }
}
