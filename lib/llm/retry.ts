import { shortReason } from '../egress'
import { ServiceError } from '../http/errors'
import { ConnectionError, ProviderError } from './client'

/** The spec's policy: after a first failure wait 100 ms, after a second 300 ms; at most two retries. */
export const RETRY_DELAYS_MS = [100, 300] as const

/** A failure worth another try: an answer that broke off, stalled, or is not what was asked for. */
export class Retryable extends Error {}

/**
 * Runs `attempt` under the retry policy. Network errors, timeouts, 408, 429,
 * 5xx and invalid answers are retried; a 4xx that retrying cannot fix is
 * 400 LLM_REJECTED at once; when every attempt failed, 502 LLM_FAILED with the
 * provider's last error.
 */
export async function withRetries<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  let last: unknown
  for (let i = 0; i <= RETRY_DELAYS_MS.length; i++) {
    if (i > 0) await delay(RETRY_DELAYS_MS[i - 1] as number, signal)
    try {
      return await attempt()
    } catch (e) {
      if (!retryable(e)) {
        if (e instanceof ProviderError) {
          throw new ServiceError(
            'LLM_REJECTED',
            `the provider refused the request (${e.status}): ${providerMessage(e)}`,
          )
        }
        throw e
      }
      last = e
    }
  }
  throw new ServiceError(
    'LLM_FAILED',
    `the provider failed ${RETRY_DELAYS_MS.length + 1} times; last: ${describe(last)}`,
  )
}

function retryable(e: unknown): boolean {
  if (e instanceof Retryable || e instanceof ConnectionError) return true
  if (e instanceof DOMException && (e.name === 'TimeoutError' || e.name === 'AbortError')) return true
  if (e instanceof ProviderError) return e.status === 408 || e.status === 429 || e.status >= 500
  return e instanceof TypeError // fetch's network failures
}

/** Characters of a provider's message quoted at most: a message says what to fix, in a line. */
const MESSAGE_CHARS = 300

/** The provider's message, as one clean line of at most MESSAGE_CHARS characters. */
function providerMessage(e: ProviderError): string {
  return shortReason(e.message, MESSAGE_CHARS)
}

function describe(e: unknown): string {
  if (e instanceof ProviderError) return `${e.status} ${providerMessage(e)}`
  if (e instanceof ConnectionError) return `cannot reach the provider (${e.message})`
  return e instanceof Error ? e.message : String(e)
}

/** The policy's wait between attempts: the backoff the spec prescribes, not a wait for an event. */
function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
  })
}
