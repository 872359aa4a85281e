/**
 * The LLM client: OpenAI-compatible providers over one fetch (client.ts),
 * the spec's retry policy, and streaming. See chat.ts.
 */
export { complete, errorEvent, sseEvent, stream } from './chat'
export type {
  Answer,
  ChatMessage,
  ChatRequest,
  Choice,
  Completion,
  ContentPart,
  FunctionTool,
  ToolCallSpec,
} from './types'
export { CHAT_ROLES } from './types'
export { clientFor } from './client'
export type { LlmClient } from './client'
export { modelFor, routeFor } from './config'
export { llmOptionsFrom } from './options'
export type { LlmOptions } from './options'
