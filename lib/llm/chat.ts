import { TooLargeError, decodeText, parseJson, readBody } from '../egress'
import type { ByteLimit } from '../egress'
import type { Message } from '../catalog'
import { ServiceError } from '../errors'
import { boundToRequest, log } from '../log'
import type { LlmClient } from './client'
import type { LlmOptions } from './options'
import { Retryable, withRetries } from './retry'

/** The request to the provider: the rendered messages and the caller's OpenAI parameters. Never the args. */
export type ChatRequest = { model: string; messages: Message[] } & Record<string, unknown>

/**
 * A chat completion, under the retry policy. The answer is the provider's
 * body exactly as it came (its text), once it is seen to be a chat completion.
 * An answer over `maxBytes` (LLM_MAX_BYTES) is LLM_FAILED at once: another
 * try would be as big.
 */
export async function complete(client: LlmClient, request: ChatRequest, options: LlmOptions): Promise<string> {
  const limit: ByteLimit = { bytes: options.maxBytes, name: 'LLM_MAX_BYTES' }
  return withRetries(async () => {
    const response = await client.chat({ ...request, stream: false })
    const text = await readWithin(response, options.timeoutMs, limit)
    let body: unknown
    try {
      body = parseJson(text)
    } catch {
      throw new Retryable('answered 200 with a body that is not JSON')
    }
    if (!isChatCompletion(body)) throw new Retryable('answered 200 with a body that is not a chat completion')
    return text
  }, options.retryDelaysMs)
}

/**
 * The whole body, within `ms` and `limit`; a body that breaks off or stalls
 * is a failure worth another try, one too big is not.
 */
async function readWithin(response: Response, ms: number, limit: ByteLimit): Promise<string> {
  try {
    return decodeText(await readBody(response, limit, AbortSignal.timeout(ms)))
  } catch (e) {
    if (e instanceof TooLargeError) throw new ServiceError('LLM_FAILED', `the provider ${e.message}`)
    throw new Retryable(`the answer broke off: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function isChatCompletion(body: unknown): boolean {
  const b = body as { object?: unknown; choices?: unknown } | null
  return typeof b === 'object' && b !== null && Array.isArray(b.choices) && b.choices.length > 0
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
): Promise<ReadableStream<Uint8Array>> {
  const { timeoutMs: gapMs, maxBytes } = options
  const { reader, first } = await withRetries(async () => {
    const response = await client.chat({ ...request, stream: true })
    if (!response.body) throw new Retryable('answered 200 with no body')
    const reader = response.body.getReader()
    try {
      const first = await within(reader.read(), gapMs)
      if (first.done) throw new Retryable('answered with an empty stream')
      return { reader, first: first.value }
    } catch (e) {
      // This attempt is over: let the provider's connection go.
      await reader.cancel().catch(() => undefined)
      throw e instanceof Retryable
        ? e
        : new Retryable(`the stream broke off: ${e instanceof Error ? e.message : String(e)}`)
    }
  }, options.retryDelaysMs)
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true })
  let tail = ''
  let size = 0
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
        const next = await within(reader.read(), gapMs)
        if (next.done) fail(controller, tail, 'the provider ended the stream before [DONE]')
        else forward(controller, next.value)
      } catch (e) {
        fail(controller, tail, e instanceof Error ? e.message : String(e))
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
function failStream(controller: ReadableStreamDefaultController<Uint8Array>, tail: string, message: string): void {
  log.warn('chat stream ended with an error', { code: 'LLM_FAILED', reason: message })
  const event = { error: { code: 'LLM_FAILED', message } }
  const separator = tail === '' || tail.endsWith('\n\n') ? '' : '\n\n'
  controller.enqueue(new TextEncoder().encode(`${separator}event: error\ndata: ${JSON.stringify(event)}\n\n`))
  controller.close()
}

/** A read that must arrive within `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DOMException(`no chunk within ${ms} ms`, 'TimeoutError')), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}
