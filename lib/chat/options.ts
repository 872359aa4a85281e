import type { Env } from '../env'
import { intVar } from '../env'

/** CHAT_TIMEOUT_MS by default: a few model turns and tool rounds. */
const DEFAULT_CHAT_TIMEOUT_MS = 120_000
/** CHAT_MAX_STEPS by default: the most tool rounds a body may ask for. */
const DEFAULT_CHAT_MAX_STEPS = 8
/** `max_steps` when the body sets none. */
export const DEFAULT_STEPS = 4
/** LLM_OUTPUT_RETRIES by default. */
const DEFAULT_OUTPUT_RETRIES = 2
/**
 * CHAT_ARGUMENTS_MAX_BYTES by default: what a render's body may carry
 * to its tools (MAX_BODY_BYTES's default), a model's call may carry to one.
 */
const DEFAULT_ARGUMENTS_MAX_BYTES = 1024 * 1024

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

export function chatOptionsFrom(env: Env): ChatOptions {
  return {
    deadlineMs: intVar(env, 'CHAT_TIMEOUT_MS', DEFAULT_CHAT_TIMEOUT_MS),
    maxSteps: intVar(env, 'CHAT_MAX_STEPS', DEFAULT_CHAT_MAX_STEPS),
    outputRetries: intVar(env, 'LLM_OUTPUT_RETRIES', DEFAULT_OUTPUT_RETRIES, 0),
    maxArgumentChars: intVar(env, 'CHAT_ARGUMENTS_MAX_BYTES', DEFAULT_ARGUMENTS_MAX_BYTES),
  }
}
