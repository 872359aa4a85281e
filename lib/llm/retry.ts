import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error'
import { abortable } from '../abort'
import { EgressError, TooLargeError } from '../egress'
import { ServiceError } from '../errors'
import { Retryable, providerWords } from './fetch'
import { describeError } from '../log'

/** A chat's deadline (CHAT_TIMEOUT_MS): its signal, and when it fires, to tell whether a wait fits before it. */
export interface Deadline {
  signal: AbortSignal
  /** `Date.now()` when the signal fires. */
  at: number
}

/**
 * Runs `attempt` under the retry policy, waiting `delaysMs` before each retry
 * (LlmOptions.retryDelaysMs). Network errors, timeouts, 408, 429, 5xx and
 * invalid answers are retried; a 4xx that retrying cannot fix is LLM_REJECTED
 * at once, and an answer over LLM_MAX_BYTES (TooLargeError, wherever it was
 * read: a body, a stream's first event) LLM_FAILED at once, another try being
 * as big; when every attempt failed, LLM_FAILED with the provider's last
 * error. A provider's `Retry-After` (or `retry-after-ms`) lengthens the wait
 * when it fits before the deadline; when it does not, LLM_FAILED at once,
 * naming the wait, rather than a retry the provider said would fail. The
 * deadline ends the waits with its reason, and so every attempt (the SDK's
 * own abort becomes the deadline's reason).
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  delaysMs: readonly number[],
  deadline?: Deadline,
): Promise<T> {
  const signal = deadline?.signal
  let last: unknown
  for (let i = 0; ; i++) {
    try {
      return await attempt()
    } catch (e) {
      if (signal?.aborted) throw signal.reason
      if (!retryable(e)) throw final(e)
      last = e
    }
    if (i === delaysMs.length) break
    const asked = askedWait(last)
    const wait = Math.max(delaysMs[i] as number, asked?.ms ?? 0)
    if (asked && deadline && Date.now() + wait > deadline.at) {
      const left = Math.max(0, deadline.at - Date.now())
      throw new ServiceError(
        'LLM_FAILED',
        `the provider answered ${describe(last)}, and asked to wait ${asked.said} before another try: more than the ${left} ms left of CHAT_TIMEOUT_MS`,
      )
    }
    await abortable(delay(wait), signal)
  }
  throw new ServiceError('LLM_FAILED', `the provider failed ${delaysMs.length + 1} times; last: ${describe(last)}`)
}

/** The error a failure that no retry can fix ends the chat with. */
function final(e: unknown): unknown {
  if (e instanceof TooLargeError) return new ServiceError('LLM_FAILED', `the provider ${e.message}`)
  const cause = e instanceof APIConnectionError ? e.cause : undefined
  if (cause instanceof EgressError) return new ServiceError('LLM_FAILED', `the provider's request ${cause.message}`)
  if (e instanceof APIError && e.status !== undefined) {
    return new ServiceError('LLM_REJECTED', `the provider refused the request (${e.status}): ${wordsOf(e)}`)
  }
  return e
}

function retryable(e: unknown): boolean {
  if (e instanceof Retryable || e instanceof APIConnectionTimeoutError) return true
  if (e instanceof APIConnectionError) return !(e.cause instanceof EgressError)
  if (e instanceof DOMException && (e.name === 'TimeoutError' || e.name === 'AbortError')) return true
  // A stream's error event (no status), or an error answer of a status worth another try.
  if (e instanceof APIError) return e.status === undefined || e.status === 408 || e.status === 429 || e.status >= 500
  if (e instanceof SyntaxError) return true // a body that is no JSON
  return e instanceof TypeError // fetch's network failures
}

/**
 * The wait a provider asked for with its answer (`retry-after-ms`, else
 * `Retry-After` in seconds or as a date), and how it said it; undefined
 * when it asked for none.
 */
function askedWait(e: unknown): { ms: number; said: string } | undefined {
  if (!(e instanceof APIError) || e instanceof APIUserAbortError || !e.headers) return undefined
  const ms = Number(e.headers.get('retry-after-ms') ?? NaN)
  if (Number.isFinite(ms) && ms >= 0) return { ms, said: `${ms} ms (retry-after-ms)` }
  const after = e.headers.get('retry-after')
  if (after === null) return undefined
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(after) ? Number(after) : (Date.parse(after) - Date.now()) / 1000
  if (!Number.isFinite(seconds)) return undefined
  const said = `${shortWait(after)} (Retry-After)`
  return { ms: Math.max(0, Math.ceil(seconds * 1000)), said }
}

/** A Retry-After as it came, short: `5 s`, or the date. */
function shortWait(after: string): string {
  const text = providerWords(after)
  return /^\d+(\.\d+)?$/.test(text) ? `${text} s` : text
}

/** A provider's message in an error answer: its `error.message`, else what the SDK made of the body. */
function wordsOf(e: APIError): string {
  const message = (e.error as { message?: unknown } | undefined)?.message
  if (typeof message === 'string') return providerWords(message)
  return providerWords(e.status === undefined ? e.message : e.message.replace(/^\d{3} /, ''))
}

function describe(e: unknown): string {
  if (e instanceof APIConnectionTimeoutError) return 'no response within LLM_TIMEOUT_MS'
  if (e instanceof APIConnectionError) {
    const cause = e.cause instanceof Error ? e.cause.message : e.message
    return `cannot reach the provider (${providerWords(cause)})`
  }
  if (e instanceof APIError) return e.status === undefined ? wordsOf(e) : `${e.status} ${wordsOf(e)}`
  if (e instanceof SyntaxError) return 'answered 200 with a body that is not JSON'
  return providerWords(describeError(e))
}

/** The policy's wait between attempts: the backoff the spec prescribes, not a wait for an event. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
