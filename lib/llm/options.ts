/** How requests to a provider are bounded and retried. */
export interface LlmOptions {
  /** LLM_TIMEOUT_MS: the wait for response headers, for a whole answer's body, and between streamed chunks. */
  timeoutMs: number
  /** LLM_MAX_BYTES: one answer's bytes, or a stream's in all, at most. */
  maxBytes: number
  /** LLM_RETRY_DELAYS_MS: the wait before each retry; as many retries as waits. */
  retryDelaysMs: readonly number[]
}
