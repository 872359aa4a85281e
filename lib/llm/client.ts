import { anthropic } from './anthropic'
import type { LlmRoute } from './config'
import { gemini } from './gemini'
import { nativeClient } from './native'
import type { LlmOptions } from './options'
import { post } from './post'

/**
 * A provider's chat endpoint, spoken as OpenAI's chat completions: an
 * OpenAI-compatible one as it is (its answer's body forwarded as it comes),
 * a native API through its dialect (native.ts). One POST each, a fetch of
 * our own: the providers' SDKs would weigh more than the rest of the Worker.
 */
export interface LlmClient {
  /** The provider's answer to one chat request, OpenAI's shape; an error status is a ProviderError; `signal` aborts it with its reason. */
  chat(body: Record<string, unknown>, signal?: AbortSignal): Promise<Response>
  /** The OpenAI parameters its API cannot take, left out of the requests so far. */
  readonly dropped?: ReadonlySet<string>
}

/**
 * The client of a route, by its API. `timeoutMs` bounds the wait for the
 * provider's response headers (not the body: a streamed answer may rightly
 * take longer), and for an error answer's body too; a native API's answer
 * is read within `maxBytes` to be translated.
 */
export function clientFor(route: LlmRoute, { timeoutMs, maxBytes }: LlmOptions): LlmClient {
  if (route.api === 'anthropic') return nativeClient(anthropic, route, timeoutMs, maxBytes)
  if (route.api === 'gemini') return nativeClient(gemini, route, timeoutMs, maxBytes)
  const url = `${route.baseURL.replace(/\/+$/, '')}/chat/completions`
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' }
  if (route.apiKey) headers.authorization = `Bearer ${route.apiKey}`
  return {
    chat: (body, signal) => post(url, { method: 'POST', headers, body: JSON.stringify(body) }, timeoutMs, signal),
  }
}
