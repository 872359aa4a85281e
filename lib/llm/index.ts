/**
 * The LLM client: OpenAI-compatible providers over one fetch (client.ts),
 * the spec's retry policy, and streaming. See chat.ts.
 */
export { complete, stream } from './chat'
export type { ChatRequest } from './chat'
export { clientFor } from './client'
export { modelFor, routeFor } from './config'
export { llmOptionsFrom } from './options'
export type { LlmOptions } from './options'
