import OpenAI from 'openai'
import { TooLargeError, readBody } from '../egress'
import type { LlmRoute } from './config'

/** An error answer's bytes read at most: enough for the provider's message, never a flood. */
const ERROR_BODY = { bytes: 64 * 1024, name: 'an error answer' }

/**
 * The OpenAI SDK for a route, its own retries off so that ours govern, and
 * `timeoutMs` bounding the wait for the provider's response headers (not the
 * body: a streamed answer may rightly take longer), and for an error
 * answer's body too, which the SDK would read in full, however big or slow.
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
      const response = await fetch(input, { ...init, signal })
      return response.ok ? response : await boundedError(response, signal)
    } finally {
      clearTimeout(timer)
    }
  }
}

/** An error answer with its body read here, within ERROR_BODY and `signal`; a bigger one says nothing. */
async function boundedError(response: Response, signal: AbortSignal): Promise<Response> {
  let body: Uint8Array | null
  try {
    body = await readBody(response, ERROR_BODY, signal)
  } catch (e) {
    if (!(e instanceof TooLargeError)) throw e
    body = null
  }
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  headers.delete('content-encoding')
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}
