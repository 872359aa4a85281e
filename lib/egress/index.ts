/**
 * Requests that leave the Worker for places a record names (tools): where
 * they may go (guarded-fetch.ts), how much of an answer is read
 * (bounded-read.ts), and what of an answer a warning may quote (quote.ts).
 */
export { EgressError, checkTarget, guardedFetch } from './guarded-fetch'
export type { EgressPolicy } from './guarded-fetch'
export { TooLargeError, cancelBody, decodeText, parseJson, readBody } from './bounded-read'
export type { ByteLimit } from './bounded-read'
export { shortReason, statusLine } from './quote'
