import { abortable } from '../abort'
import { TooLargeError } from '../egress'
import { ServiceError } from '../errors'
import { ConnectionError, ProviderError, providerWords } from './post'

/** A failure worth another try: an answer that broke off, stalled, or is not what was asked for. */
export class Retryable extends Error {}

/**
 * Runs `attempt` under the retry policy, waiting `delaysMs` before each retry
 * (LlmOptions.retryDelaysMs). Network errors, timeouts, 408, 429, 5xx and
 * invalid answers are retried; a 4xx that retrying cannot fix is LLM_REJECTED
 * at once, and an answer over LLM_MAX_BYTES (TooLargeError, wherever it was
 * read: a body, a stream's first event) LLM_FAILED at once, another try being
 * as big; when every attempt failed, LLM_FAILED with the provider's last
 * error. `signal` ends the waits between attempts with its reason (an
 * attempt ends itself when it aborts).
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  delaysMs: readonly number[],
  signal?: AbortSignal,
): Promise<T> {
  let last: unknown
  for (let i = 0; i <= delaysMs.length; i++) {
    if (i > 0) await abortable(delay(delaysMs[i - 1] as number), signal)
    try {
      return await attempt()
    } catch (e) {
      if (!retryable(e)) {
        if (e instanceof TooLargeError) throw new ServiceError('LLM_FAILED', `the provider ${e.message}`)
        if (e instanceof ProviderError) {
          throw new ServiceError(
            'LLM_REJECTED',
            `the provider refused the request (${e.status}): ${providerWords(e.message)}`,
          )
        }
        throw e
      }
      last = e
    }
  }
  throw new ServiceError('LLM_FAILED', `the provider failed ${delaysMs.length + 1} times; last: ${describe(last)}`)
}

function retryable(e: unknown): boolean {
  if (e instanceof Retryable || e instanceof ConnectionError) return true
  if (e instanceof DOMException && (e.name === 'TimeoutError' || e.name === 'AbortError')) return true
  if (e instanceof ProviderError) return e.status === 408 || e.status === 429 || e.status >= 500
  return e instanceof TypeError // fetch's network failures
}

function describe(e: unknown): string {
  if (e instanceof ProviderError) return `${e.status} ${providerWords(e.message)}`
  if (e instanceof ConnectionError) return `cannot reach the provider (${providerWords(e.message)})`
  return providerWords(e instanceof Error ? e.message : String(e))
}

/** The policy's wait between attempts: the backoff the spec prescribes, not a wait for an event. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
