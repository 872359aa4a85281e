import type { OpenAI } from 'openai'
import { anthropic } from './anthropic'
import type { LlmRoute } from './config'
import { providerFetch } from './fetch'
import type { ProviderFetch } from './fetch'
import { gemini } from './gemini'
import { nativeFetch } from './native'
import type { LlmOptions } from './options'

/**
 * A provider's chat endpoint, spoken through OpenAI's SDK: an
 * OpenAI-compatible one as it is, a native API through its dialect
 * (native.ts), which the SDK's `fetch` translates. Retries are ours
 * (retry.ts), so the SDK makes one request per call.
 */
export interface LlmClient {
  /** The SDK's client of the route, made on the first call (the SDK is loaded then, not at startup). */
  openai(): Promise<OpenAI>
  /** The OpenAI parameters its API cannot take, left out of the requests so far. */
  readonly dropped?: ReadonlySet<string>
}

/**
 * Headers the SDK adds of its own that a provider has no need of: its
 * version, the runtime's, the OS and the architecture, and its retry
 * count and timeout (it retries nothing here). A null removes one.
 */
const UNSENT = {
  'User-Agent': null,
  'X-Stainless-Lang': null,
  'X-Stainless-Package-Version': null,
  'X-Stainless-OS': null,
  'X-Stainless-Arch': null,
  'X-Stainless-Runtime': null,
  'X-Stainless-Runtime-Version': null,
  'X-Stainless-Retry-Count': null,
  'X-Stainless-Timeout': null,
} as const

/**
 * The client of a route, by its API. `timeoutMs` bounds the wait for the
 * provider's response headers (the SDK's `timeout`), the gap between a
 * stream's chunks and the reading of any other body (providerFetch);
 * `maxBytes` an answer's bytes.
 */
export function clientFor(route: LlmRoute, { timeoutMs, maxBytes }: LlmOptions): LlmClient {
  if (route.api === 'openai') {
    return sdkClient(route, timeoutMs, providerFetch({ timeoutMs, maxBytes, untilDone: true }))
  }
  const dropped = new Set<string>()
  const send = providerFetch({ timeoutMs, maxBytes, untilDone: false })
  const dialect = route.api === 'anthropic' ? anthropic : gemini
  return { ...sdkClient(route, timeoutMs, nativeFetch(dialect, route, send, maxBytes, dropped)), dropped }
}

/**
 * The SDK configured for the edge: no retries of its own (its backoff would
 * wait a Retry-After past the chat's deadline), the given fetch, nothing
 * read from the environment (every option it would read there is given:
 * key, base URL, organization, project, log level), no logging (it would
 * print a provider's words to the console). A route without a key sends no
 * Authorization; the SDK wants one, so it gets a placeholder it never sends.
 */
function sdkClient(route: LlmRoute, timeoutMs: number, fetch: ProviderFetch): LlmClient {
  let made: Promise<OpenAI> | undefined
  return {
    openai() {
      made ??= import('openai').then(
        ({ OpenAI }) =>
          new OpenAI({
            apiKey: route.apiKey || 'none',
            adminAPIKey: null,
            organization: null,
            project: null,
            webhookSecret: null,
            baseURL: route.baseURL,
            maxRetries: 0,
            timeout: timeoutMs,
            fetch,
            logLevel: 'off',
            defaultHeaders: route.apiKey ? UNSENT : { ...UNSENT, Authorization: null },
          }),
      )
      return made
    },
  }
}
