import type { ChatCompletionChunk, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions'
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions'
import { abortable } from '../abort'
import { TooLargeError } from '../egress'
import { ServiceError } from '../errors'
import type { ErrorCode } from '../errors'
import { boundToRequest, describeError, log } from '../log'
import { redact } from '../redact'
import type { LlmClient } from './client'
import { Retryable, providerWords } from './fetch'
import type { LlmOptions } from './options'
import { withRetries } from './retry'
import type { Deadline } from './retry'
import type { ChatRequest, Completion } from './types'

/**
 * A chat completion, under the retry policy: the provider's answer as the
 * SDK parsed it, once it is seen to be a chat completion. An answer over
 * LLM_MAX_BYTES is LLM_FAILED at once (withRetries). The deadline ends the
 * wait, and every retry, with its reason.
 */
export async function complete(
  client: LlmClient,
  request: ChatRequest,
  options: LlmOptions,
  deadline?: Deadline,
): Promise<Completion> {
  return withRetries(
    async () => {
      const openai = await client.openai()
      const params = { ...request, stream: false } as ChatCompletionCreateParamsNonStreaming
      const body: unknown = await openai.chat.completions.create(params, { signal: deadline?.signal })
      if (!isChatCompletion(body)) throw new Retryable('answered 200 with a body that is not a chat completion')
      return body
    },
    options.retryDelaysMs,
    deadline,
  )
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
 * A streamed chat: the provider's chunks, as the SDK parsed them, forwarded
 * as server-sent events as they arrive, then `[DONE]`. Retries apply until
 * the first chunk is in hand; after it, a failure, a gap between chunks
 * longer than `timeoutMs`, more than `maxBytes` (LLM_MAX_BYTES) in all
 * (providerFetch bounds them), or the deadline ends the stream with an
 * `error` event and no `[DONE]`, never a silent clean end.
 */
export async function stream(
  client: LlmClient,
  request: ChatRequest,
  options: LlmOptions,
  deadline?: Deadline,
): Promise<ReadableStream<Uint8Array>> {
  const signal = deadline?.signal
  const { chunks, first } = await withRetries(
    async () => {
      const openai = await client.openai()
      const params = { ...request, stream: true } as ChatCompletionCreateParamsStreaming
      const chunks = (await openai.chat.completions.create(params, { signal }))[Symbol.asyncIterator]()
      try {
        const first = await abortable(chunks.next(), signal)
        if (first.done) throw new Retryable('answered with an empty stream')
        return { chunks, first: first.value }
      } catch (e) {
        // This attempt is over: let the provider's connection go.
        await chunks.return?.(undefined).catch(() => undefined)
        throw e
      }
    },
    options.retryDelaysMs,
    deadline,
  )
  const encoder = new TextEncoder()
  const event = (chunk: ChatCompletionChunk) => encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`)
  // The stream outlives the handler; its failure is logged against the request that started it.
  const fail = boundToRequest(failStream)
  const letGo = () => chunks.return?.(undefined).catch(() => undefined)
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(event(first))
    },
    async pull(controller) {
      try {
        const next = await abortable(chunks.next(), signal)
        // The SDK ends quietly when its request is aborted: the deadline's, then, not the provider's end.
        if (signal?.aborted) throw signal.reason
        if (!next.done) return controller.enqueue(event(next.value))
        controller.enqueue(encoder.encode('data: [DONE]\n\n'))
        controller.close()
      } catch (e) {
        await letGo()
        if (e instanceof ServiceError) return fail(controller, e.message, e.code)
        if (e instanceof TooLargeError)
          return fail(controller, `the answer passed LLM_MAX_BYTES (${options.maxBytes} bytes)`)
        fail(controller, midAnswer(e))
      }
    },
    async cancel() {
      await letGo()
    },
  })
}

/** What ends a stream that failed after its first chunk: the provider's error event, or the read's failure. */
function midAnswer(e: unknown): string {
  const said = (e as { error?: { message?: unknown } } | null)?.error?.message
  if (typeof said === 'string') return `the provider failed mid-answer: ${providerWords(said)}`
  return describeError(e)
}

/**
 * Ends the stream with an error event (every event before it was whole: the
 * SDK parsed them). The request's log line was written with the 200 that
 * started the stream, so the failure gets a line of its own.
 */
function failStream(
  controller: ReadableStreamDefaultController<Uint8Array>,
  message: string,
  code: ErrorCode = 'LLM_FAILED',
): void {
  controller.enqueue(new TextEncoder().encode(errorEvent(code, message)))
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
