import { sseEvents } from '../egress'
import type { ByteLimit, SseEvent } from '../egress'
import { ServiceError } from '../errors'
import { TooLargeError } from '../egress'
import { isObject } from '../json'

/** A chat's event stream as it is read: each event, or the failure that ended the read, as a ServiceError. */
export async function* chatEvents(
  body: ReadableStream<Uint8Array>,
  limit: ByteLimit,
): AsyncGenerator<SseEvent | ServiceError> {
  try {
    yield* sseEvents(body, limit)
  } catch (e) {
    if (e instanceof ServiceError) return yield e
    if (e instanceof TooLargeError)
      return yield new ServiceError('LLM_FAILED', `the answer passed ${limit.name} (${limit.bytes} bytes)`)
    yield new ServiceError('INTERNAL', 'internal error', { cause: e })
  }
}

/** An event's JSON data, or undefined when it is not JSON (`[DONE]`). */
export function dataOf(event: SseEvent): Record<string, unknown> | undefined {
  try {
    const data: unknown = JSON.parse(event.data)
    return isObject(data) ? data : undefined
  } catch {
    return undefined
  }
}

/** Whether an event is the chat's `[DONE]`. */
export function isDone(event: SseEvent): boolean {
  return /^\s*\[DONE\]\s*$/.test(event.data)
}
