import { abortable } from '../abort'
import { PieceReader, TooLargeError, decodeText, parseJson, readBody } from '../egress'
import type { ByteLimit } from '../egress'
import { ServiceError } from '../errors'
import type { ErrorCode } from '../errors'
import { boundToRequest, log } from '../log'
import { redact } from '../redact'
import type { LlmClient } from './client'
import type { LlmOptions } from './options'
import { Retryable, withRetries } from './retry'
import type { Answer, ChatRequest, Completion } from './types'

/**
 * A chat completion, under the retry policy: the provider's body exactly as
 * it came (its text), once it is seen to be a chat completion, and what it
 * says. An answer over `maxBytes` (LLM_MAX_BYTES) is LLM_FAILED at once
 * (withRetries). `signal` (a chat's deadline) ends the wait,
 * and every retry, with its reason.
 */
export async function complete(
  client: LlmClient,
  request: ChatRequest,
  options: LlmOptions,
  signal?: AbortSignal,
): Promise<Answer> {
  const limit: ByteLimit = { bytes: options.maxBytes, name: 'LLM_MAX_BYTES' }
  return withRetries(
    async () => {
      const response = await client.chat({ ...request, stream: false }, signal)
      const text = await readWithin(response, options.timeoutMs, limit, signal)
      let body: unknown
      try {
        body = parseJson(text)
      } catch {
        throw new Retryable('answered 200 with a body that is not JSON')
      }
      if (!isChatCompletion(body)) throw new Retryable('answered 200 with a body that is not a chat completion')
      return { text, completion: body }
    },
    options.retryDelaysMs,
    signal,
  )
}

/**
 * The whole body, within `ms` and `limit`; a body that breaks off or stalls
 * is a failure worth another try, one too big is not, nor one `signal` ended.
 */
async function readWithin(response: Response, ms: number, limit: ByteLimit, signal?: AbortSignal): Promise<string> {
  const timeout = AbortSignal.timeout(ms)
  try {
    return decodeText(await readBody(response, limit, signal ? AbortSignal.any([timeout, signal]) : timeout))
  } catch (e) {
    if (signal?.aborted) throw signal.reason
    throw retryableUnlessTooLarge(e, 'the answer broke off')
  }
}

/** A failure reading an answer, worth another try unless the answer was too big (withRetries ends at that). */
function retryableUnlessTooLarge(e: unknown, what: string): Error {
  if (e instanceof TooLargeError) return e
  return new Retryable(`${what}: ${e instanceof Error ? e.message : String(e)}`)
}

/** A body with a non-empty list of choices, each with a message. */
function isChatCompletion(body: unknown): body is Completion {
  const b = body as { choices?: unknown } | null
  return (
    typeof b === 'object' &&
    b !== null &&
    Array.isArray(b.choices) &&
    b.choices.length > 0 &&
    b.choices.every((c: unknown) => typeof (c as { message?: unknown } | null)?.message === 'object')
  )
}

/**
 * A streamed chat: the provider's server-sent events, forwarded as they
 * arrive. Retries apply until the first chunk is in hand; after it, a
 * failure, a gap between chunks longer than `timeoutMs`, or more than
 * `maxBytes` (LLM_MAX_BYTES) in all ends the stream with an `error` event
 * and no `[DONE]`, never a silent clean end.
 */
export async function stream(
  client: LlmClient,
  request: ChatRequest,
  options: LlmOptions,
  signal?: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const { timeoutMs: gapMs, maxBytes } = options
  const { reader, first } = await withRetries(
    async () => {
      const response = await client.chat({ ...request, stream: true }, signal)
      if (!response.body) throw new Retryable('answered 200 with no body')
      const reader = response.body.getReader()
      try {
        const first = await within(reader.read(), gapMs, signal)
        if (first.done) throw new Retryable('answered with an empty stream')
        return { reader, first: first.value }
      } catch (e) {
        // This attempt is over: let the provider's connection go.
        await reader.cancel().catch(() => undefined)
        if (signal?.aborted) throw signal.reason
        throw e instanceof Retryable ? e : retryableUnlessTooLarge(e, 'the stream broke off')
      }
    },
    options.retryDelaysMs,
    signal,
  )
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true })
  let tail = ''
  let size = 0
  const pieces = new PieceReader(reader)
  /** The provider ended its stream with the last piece forwarded. */
  let ended = false
  // The stream outlives the handler; its failure is logged against the request that started it.
  const fail = boundToRequest(failStream)
  const forward = (controller: ReadableStreamDefaultController<Uint8Array>, chunk: Uint8Array): void => {
    size += chunk.byteLength
    if (size > maxBytes) {
      // What the client has is whole chunks, all within the limit; the error event ends it.
      fail(controller, tail, `the answer passed LLM_MAX_BYTES (${maxBytes} bytes)`)
      void reader.cancel().catch(() => undefined)
      return
    }
    controller.enqueue(chunk)
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-64)
    // [DONE] ends the answer, whatever the connection does next.
    if (/data: ?\[DONE\]\s*$/.test(tail)) {
      controller.close()
      void reader.cancel().catch(() => undefined)
    }
  }
  return new ReadableStream<Uint8Array>({
    start(controller) {
      forward(controller, first)
    },
    async pull(controller) {
      try {
        const next = ended ? { done: true as const } : await within(pieces.read(), gapMs, signal)
        if (next.done) {
          fail(controller, tail, 'the provider ended the stream before [DONE]')
          return
        }
        const { piece, done } = await pieces.gather(next.value)
        ended = done
        forward(controller, piece)
      } catch (e) {
        const code = e instanceof ServiceError ? e.code : 'LLM_FAILED'
        fail(controller, tail, e instanceof Error ? e.message : String(e), code)
        await reader.cancel().catch(() => undefined)
      }
    },
    async cancel() {
      await reader.cancel().catch(() => undefined)
    },
  })
}

/**
 * Ends the stream with an error event, on an event boundary even if the
 * provider broke off mid-event. The request's log line was written with the
 * 200 that started the stream, so the failure gets a line of its own.
 */
function failStream(
  controller: ReadableStreamDefaultController<Uint8Array>,
  tail: string,
  message: string,
  code: ErrorCode = 'LLM_FAILED',
): void {
  const separator = tail === '' || tail.endsWith('\n\n') ? '' : '\n\n'
  controller.enqueue(new TextEncoder().encode(separator + errorEvent(code, message)))
  controller.close()
}

/**
 * The `error` event that ends a stream, also logged (the request's line went
 * out with the 200). Its message may quote a provider: it is redacted here,
 * where it leaves, whatever worded it.
 */
export function errorEvent(code: ErrorCode, message: string): string {
  log.warn('chat stream ended with an error', { code, reason: message })
  return sseEvent('error', { error: { code, message: redact(message) } })
}

/** One server-sent event of ours (`error`, `step`, ...), its data JSON. */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}

/** A read that must arrive within `ms`, and before `signal` aborts. */
function within<T>(p: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DOMException(`no chunk within ${ms} ms`, 'TimeoutError')), ms)
  })
  return abortable(Promise.race([p, timeout]), signal).finally(() => clearTimeout(timer))
}
