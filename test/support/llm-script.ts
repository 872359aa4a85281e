// The scripts of the LLM server's models (`POST /__script?model=NAME`): what
// a script is, and its body checked field by field, so that a typo in a test
// is an error, not a default.
import type { ScriptedToolCall, Usage } from './llm-wire/wire'

/**
 * One answer of a scripted model (`POST /__script`). Without `hang` or `status`, an answer in the request's
 * format: `content` defaults to null when there are tool calls, else ''; `finish_reason` (OpenAI's terms, which
 * each format translates) to `tool_calls` when there are tool calls, else `stop`; `usage` to USAGE.
 */
export interface ScriptedAnswer {
  content?: string | null
  tool_calls?: ScriptedToolCall[]
  finish_reason?: string
  usage?: Usage
  /** Never answers, until the client leaves or the server stops. */
  hang?: true
  /** Answers this error status (400 to 599) with an error body in the request's format, `error` its message. */
  status?: number
  error?: string
  /** With `status`: the `Retry-After` header the error answer carries, as it is sent (seconds, or a date). */
  retry_after?: string
}

/** A model's script as `/__script` took it. */
export interface Script {
  answers: ScriptedAnswer[]
  repeatLast: boolean
}

const ANSWER_FIELDS = ['content', 'tool_calls', 'finish_reason', 'usage', 'hang', 'status', 'error', 'retry_after']
/** The fields of an answer that is a completion, which one that hangs or fails cannot have. */
const COMPLETION_FIELDS = ['content', 'tool_calls', 'finish_reason', 'usage']
const TOOL_CALL_FIELDS = ['id', 'name', 'arguments']
const USAGE_FIELDS = ['prompt_tokens', 'completion_tokens', 'total_tokens']

/** A `/__script` body, checked field by field: a typo must not pass for a default. */
export function parseScript(body: Record<string, unknown>): Script {
  onlyFields(body, ['answers', 'repeat_last'], 'the body')
  const { answers, repeat_last: repeatLast = false } = body
  if (!Array.isArray(answers) || answers.length === 0) throw new Error('answers must be a non-empty array')
  if (typeof repeatLast !== 'boolean') throw new Error('repeat_last must be a boolean')
  return { answers: answers.map((answer: unknown, i) => parseAnswer(answer, `answers[${i}]`)), repeatLast }
}

function parseAnswer(answer: unknown, at: string): ScriptedAnswer {
  const fields = objectAt(answer, at)
  onlyFields(fields, ANSWER_FIELDS, at)
  const { content, tool_calls: toolCalls, finish_reason: finishReason, usage, hang, status, error } = fields
  const retryAfter = fields.retry_after
  if (content !== undefined && content !== null && typeof content !== 'string') {
    throw new Error(`${at}.content must be a string or null`)
  }
  if (toolCalls !== undefined) {
    if (!Array.isArray(toolCalls) || toolCalls.length === 0) {
      throw new Error(`${at}.tool_calls must be a non-empty array`)
    }
    toolCalls.forEach((call: unknown, j) => {
      const callFields = objectAt(call, `${at}.tool_calls[${j}]`)
      onlyFields(callFields, TOOL_CALL_FIELDS, `${at}.tool_calls[${j}]`)
      for (const field of TOOL_CALL_FIELDS) {
        if (typeof callFields[field] !== 'string') throw new Error(`${at}.tool_calls[${j}].${field} must be a string`)
      }
    })
  }
  if (finishReason !== undefined && typeof finishReason !== 'string') {
    throw new Error(`${at}.finish_reason must be a string`)
  }
  if (usage !== undefined) {
    const usageFields = objectAt(usage, `${at}.usage`)
    onlyFields(usageFields, USAGE_FIELDS, `${at}.usage`)
    for (const field of USAGE_FIELDS) {
      const count = usageFields[field]
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
        throw new Error(`${at}.usage.${field} must be a non-negative integer`)
      }
    }
  }
  if (hang !== undefined && hang !== true) throw new Error(`${at}.hang must be true when given`)
  if (
    status !== undefined &&
    (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)
  ) {
    throw new Error(`${at}.status must be an error status, 400 to 599`)
  }
  if (error !== undefined && typeof error !== 'string') throw new Error(`${at}.error must be a string`)
  if (error !== undefined && status === undefined)
    throw new Error(`${at}.error is the message of a status, and there is none`)
  if (retryAfter !== undefined && (typeof retryAfter !== 'string' || status === undefined)) {
    throw new Error(`${at}.retry_after must be a string, the header of an error status`)
  }
  if (hang && status !== undefined) throw new Error(`${at} cannot both hang and answer a status`)
  const given = COMPLETION_FIELDS.filter((field) => fields[field] !== undefined)
  if ((hang || status !== undefined) && given.length > 0) {
    throw new Error(`${at} ${hang ? 'hangs' : 'answers a status'}, so it cannot have ${given.join(', ')}`)
  }
  return fields as ScriptedAnswer
}

function objectAt(value: unknown, at: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${at} must be an object`)
  return value as Record<string, unknown>
}

function onlyFields(value: Record<string, unknown>, fields: string[], at: string): void {
  const unknown = Object.keys(value).filter((key) => !fields.includes(key))
  if (unknown.length > 0) throw new Error(`${at} has unknown fields ${unknown.join(', ')}; known: ${fields.join(', ')}`)
}
