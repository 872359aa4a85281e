/**
 * OpenAI's chat shapes, as far as the service reads them. Everything else
 * a provider or a caller puts in them is kept and passed on untouched.
 */

/** A tool call in an assistant message: `arguments` is JSON text, as the model wrote it. */
export interface ToolCallSpec {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
  [field: string]: unknown
}

/** One content part (`text`, `image_url`, `input_audio`, `file`, ...). */
export interface ContentPart {
  type: string
  [field: string]: unknown
}

export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const

/** A message of a chat: the rendered prompt's, the caller's, the model's, or a tool's answer. */
export interface ChatMessage {
  role: (typeof CHAT_ROLES)[number]
  content?: string | ContentPart[] | null | undefined
  name?: string | undefined
  tool_calls?: ToolCallSpec[] | undefined
  tool_call_id?: string | undefined
  [field: string]: unknown
}

/** A function tool as OpenAI takes it. */
export interface FunctionTool {
  type: 'function'
  function: { name: string; description?: string; parameters?: unknown; strict?: boolean; [field: string]: unknown }
  [field: string]: unknown
}

/** The request to the provider: the messages and the OpenAI parameters. Never the args. */
export type ChatRequest = { model: string; messages: ChatMessage[] } & Record<string, unknown>

export interface Choice {
  index: number
  message: ChatMessage & { parsed?: unknown; parse_warnings?: string[] }
  finish_reason: string | null
  [field: string]: unknown
}

/** A `chat.completion`: at least one choice. */
export interface Completion {
  choices: Choice[]
  usage?: unknown
  [field: string]: unknown
}
