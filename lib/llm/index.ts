/**
 * The LLM client: providers through OpenAI's SDK (client.ts), over a
 * bounded, guarded fetch (fetch.ts), the spec's retry policy (retry.ts),
 * and streaming. See chat.ts.
 */
export { complete, errorEvent, sseEvent, stream } from './completion'
export type { ChatMessage, ChatRequest, Choice, Completion, ContentPart, FunctionTool, ToolCallSpec } from './types'
export { CHAT_ROLES } from './types'
export { clientFor } from './client'
export type { LlmClient } from './client'
export { modelFor, noLlm } from './config'
export type { Deadline } from './retry'
export type { LlmOptions } from './options'
