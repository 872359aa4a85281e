import { decodeText, readBody, sseEvents } from '../egress'
import type { ByteLimit, SseEvent } from '../egress'
import { isObject } from '../json'
import type { LlmRoute } from './config'
import { providerWords } from './fetch'
import type { ProviderFetch } from './fetch'
import type { Completion } from './types'

/**
 * How an API other than OpenAI's is spoken: the request translated from
 * OpenAI's, the answer and the stream translated back. Everything above
 * the client (retries, limits, the chat loop) sees OpenAI's shapes only.
 */
export interface Dialect {
  /** The request to the provider: URL, headers, body; and the OpenAI parameters it cannot take, left out. */
  request(route: LlmRoute, body: Record<string, unknown>): NativeRequest
  /** The provider's answer as a chat completion; undefined when it is not an answer. */
  answer(json: unknown, model: string): Completion | undefined
  /** A translator of one streamed answer. */
  stream(model: string, includeUsage: boolean): StreamTranslator
}

export interface NativeRequest {
  url: string
  headers: Record<string, string>
  body: unknown
  dropped: string[]
}

export interface StreamTranslator {
  /** The OpenAI events (`data: ...`) a provider event makes; throws when the provider says it failed. */
  next(event: SseEvent): string
  /** What ends the stream (its last chunks, `[DONE]`); throws when the provider stopped before its end. */
  end(): string
}

/**
 * The SDK's fetch for a native API: the OpenAI request the SDK makes,
 * translated and sent to the provider through `send` (providerFetch, which
 * bounds what comes back); an error answer handed on as it came (the SDK
 * reads `{"error": {"message"}}`, which Anthropic's and Google's shapes
 * share); an answer translated whole, a stream event by event as it is
 * read. The parameters the API cannot take are added to `dropped`.
 */
export function nativeFetch(
  dialect: Dialect,
  route: LlmRoute,
  send: ProviderFetch,
  maxBytes: number,
  dropped: Set<string>,
): ProviderFetch {
  const limit: ByteLimit = { bytes: maxBytes, name: 'LLM_MAX_BYTES' }
  return async (_url, init = {}) => {
    // The SDK's own JSON of the request: read back, to be translated.
    const body = JSON.parse(String(init.body)) as Record<string, unknown>
    const request = dialect.request(route, body)
    for (const name of request.dropped) dropped.add(name)
    const { signal } = init
    const sent = { method: 'POST', headers: request.headers, body: JSON.stringify(request.body), signal }
    const response = await send(request.url, sent)
    if (!response.ok) return response
    const model = String(body.model)
    if (body.stream !== true) {
      return new Response(translatedAnswer(response, dialect, model, limit), { headers: JSON_TYPE })
    }
    const usage = isObject(body.stream_options) && body.stream_options.include_usage === true
    return new Response(translatedStream(response, dialect.stream(model, usage), limit), { headers: SSE_TYPE })
  }
}

const JSON_TYPE = { 'content-type': 'application/json' }
const SSE_TYPE = { 'content-type': 'text/event-stream' }

/**
 * The answer, read whole within `limit` (its reader's signal bounds the
 * wait), then translated; an answer that is not the provider's is passed on
 * as it came, for the caller to find it is not a chat completion.
 */
function translatedAnswer(response: Response, dialect: Dialect, model: string, limit: ByteLimit) {
  const reading = new AbortController()
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        const text = decodeText(await readBody(response, limit, reading.signal))
        let translated: Completion | undefined
        try {
          translated = dialect.answer(JSON.parse(text), model)
        } catch {
          translated = undefined
        }
        controller.enqueue(new TextEncoder().encode(translated ? JSON.stringify(translated) : text))
        controller.close()
      } catch (e) {
        controller.error(e)
      }
    },
    cancel(reason) {
      reading.abort(reason)
    },
  })
}

function translatedStream(
  response: Response,
  translator: StreamTranslator,
  limit: ByteLimit,
): ReadableStream<Uint8Array> {
  const events = sseEvents(response.body ?? new ReadableStream(), limit)
  const encoder = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const next = await events.next()
        const out = next.done ? translator.end() : translator.next(next.value)
        if (out !== '') controller.enqueue(encoder.encode(out))
        if (next.done) return controller.close()
        if (out !== '') return
      }
    },
    async cancel() {
      await events.return(undefined)
    },
  })
}

/** One OpenAI `chat.completion.chunk` event. */
export function chunk(
  head: { id: string; model: string; created: number },
  delta: Record<string, unknown>,
  finish: string | null = null,
): string {
  const choices = [{ index: 0, delta, finish_reason: finish }]
  return `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices })}\n\n`
}

/** The last events of a stream: the finish reason, the usage when asked for, `[DONE]`. */
export function ending(
  head: { id: string; model: string; created: number },
  finish: string,
  usage: Completion['usage'],
  includeUsage: boolean,
): string {
  const totals = includeUsage
    ? `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage })}\n\n`
    : ''
  return chunk(head, {}, finish) + totals + 'data: [DONE]\n\n'
}

/** The usage of an answer, OpenAI's way. */
export function usageOf(prompt: number, completion: number, total = prompt + completion) {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total }
}

/** OpenAI's text of a message's content: the string, or the text parts joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((p: unknown) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join('')
}

/** A conversation's instructions: its system and developer messages' text, which native APIs take apart from the turns. */
export function instructionsOf(messages: readonly { role?: unknown; content?: unknown }[]): string {
  return messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n\n')
}

/** An `image_url` content part's image: its bytes (a base64 data URL) or its URL; undefined for any other part. */
export function imageOf(part: Record<string, unknown>): { mime: string; data: string } | { url: string } | undefined {
  if (part.type !== 'image_url' || !isObject(part.image_url) || typeof part.image_url.url !== 'string') return undefined
  const { url } = part.image_url
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  return data ? { mime: data[1] as string, data: data[2] as string } : { url }
}

/** A tool call's arguments as the object native APIs take; arguments that are not one are passed as `{}`. */
export function argumentsOf(text: unknown): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(String(text))
    return isObject(parsed) ? parsed : {}
  } catch {
    return {}
  }
}

/** Seconds since the epoch, as `created` says. */
export const now = (): number => Math.floor(Date.now() / 1000)

/** A provider's `error` event in a stream, as the error that ends it: its kind and message, quoted as its words. */
export function failedMidAnswer(kind: unknown, message: unknown): Error {
  return new Error(`the provider failed mid-answer: ${providerWords(`${String(kind)}: ${String(message)}`)}`)
}
