/**
 * The LLM client: OpenAI-compatible providers over one fetch (client.ts),
 * the spec's retry policy, and streaming. See chat.ts.
 */
export { DEFAULT_LLM_MAX_BYTES, complete, stream } from './chat'
export type { ChatMessage, ChatRequest } from './chat'
export { clientFor } from './client'
export { modelFor, routeFor } from './config'
export { RETRY_DELAYS_MS } from './retry'
