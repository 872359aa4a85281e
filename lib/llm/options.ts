import type { Env } from '../env'
import { intListVar, intVar } from '../env'

/** LLM_TIMEOUT_MS by default. */
const DEFAULT_LLM_TIMEOUT_MS = 30_000
/** LLM_MAX_BYTES by default: 4 MiB of one answer, or of one streamed answer in all. */
const DEFAULT_LLM_MAX_BYTES = 4 * 1024 * 1024
/** The spec's policy: after a first failure wait 100 ms, after a second 300 ms; at most two retries. */
const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [100, 300]
/** Retries at most, whatever LLM_RETRY_DELAYS_MS says: a failing provider is not worth more. */
const MAX_RETRIES = 5

/** How requests to a provider are bounded and retried. */
export interface LlmOptions {
  /** LLM_TIMEOUT_MS: the wait for response headers, for a whole answer's body, and between streamed chunks. */
  timeoutMs: number
  /** LLM_MAX_BYTES: one answer's bytes, or a stream's in all, at most. */
  maxBytes: number
  /** LLM_RETRY_DELAYS_MS: the wait before each retry; as many retries as waits. */
  retryDelaysMs: readonly number[]
}

/** The LLM options the Worker's configuration sets. */
export function llmOptionsFrom(env: Env): LlmOptions {
  return {
    timeoutMs: intVar(env, 'LLM_TIMEOUT_MS', DEFAULT_LLM_TIMEOUT_MS),
    maxBytes: intVar(env, 'LLM_MAX_BYTES', DEFAULT_LLM_MAX_BYTES),
    retryDelaysMs: intListVar(env, 'LLM_RETRY_DELAYS_MS', DEFAULT_RETRY_DELAYS_MS, MAX_RETRIES),
  }
}
