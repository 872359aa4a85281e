import OpenAI from 'openai'
import type { LlmRoute } from './config'

/**
 * The OpenAI SDK for a route, its own retries off so that ours govern, and
 * `timeoutMs` bounding the wait for the provider's response headers (not the
 * body: a streamed answer may rightly take longer).
 */
export function clientFor(route: LlmRoute, timeoutMs: number): OpenAI {
  return new OpenAI({
    baseURL: route.baseURL,
    apiKey: route.apiKey,
    maxRetries: 0,
    fetch: headersWithin(timeoutMs),
  })
}

function headersWithin(timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const timeout = new AbortController()
    const timer = setTimeout(
      () => timeout.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    )
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout.signal]) : timeout.signal
    try {
      return await fetch(input, { ...init, signal })
    } finally {
      clearTimeout(timer)
    }
  }
}
