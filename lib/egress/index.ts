/**
 * What leaves the Worker and what comes back: where a request to a place a
 * record names (a tool) may go (guarded-fetch.ts), how much of an answer,
 * a tool's or an LLM provider's, is read (bounded-read.ts) or forwarded
 * (gather.ts), how an event
 * stream is parsed (sse.ts), and what of an answer a warning or an error
 * may quote (quote.ts).
 */
export { EgressError, checkTarget, guardedFetch } from './guarded-fetch'
export type { EgressPolicy } from './guarded-fetch'
export { TooLargeError, cancelBody, decodeText, parseJson, readBody } from './bounded-read'
export type { ByteLimit } from './bounded-read'
export { PieceReader } from './gather'
export { shortReason, statusLine } from './quote'
export { SseParser, sseEvents } from './sse'
export type { SseEvent } from './sse'
