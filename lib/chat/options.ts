/** `max_steps` when the body sets none. */
export const DEFAULT_STEPS = 4

/** How a chat's loop is bounded. */
export interface ChatOptions {
  /** CHAT_TIMEOUT_MS: one deadline for every provider request and tool round of a chat. */
  deadlineMs: number
  /** CHAT_MAX_STEPS: the largest `max_steps` a body may set. */
  maxSteps: number
  /** LLM_OUTPUT_RETRIES: times a chat asks again for an answer that does not match `returns`. */
  outputRetries: number
  /** CHAT_ARGUMENTS_MAX_BYTES: the characters of one tool call's arguments at most. */
  maxArgumentChars: number
}
