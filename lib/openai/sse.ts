import { sseEvents } from '../egress'
import type { ByteLimit, SseEvent } from '../egress'
import { ServiceError } from '../errors'
import { TooLargeError } from '../egress'
import { isObject } from '../json'
import { boundToRequest } from '../log'

/**
 * A stream of text made by `events`, pulled as the caller reads: nothing is
 * made ahead of the reader, and a caller who leaves ends the generator
 * (its `finally`, the chat's connection with it).
 */
export function readableOf(events: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  // The stream outlives the handler: what it logs belongs to the request that started it.
  const pull = boundToRequest(async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const next = await events.next()
    if (next.done) controller.close()
    else controller.enqueue(encoder.encode(next.value))
  })
  return new ReadableStream<Uint8Array>({
    pull,
    async cancel() {
      await events.return(undefined)
    },
  })
}

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
