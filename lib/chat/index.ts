/**
 * Chat: the rendered prompt and the caller's messages sent to a model,
 * the prompt's tools offered to it and called for it in rounds, and its
 * answer checked against the prompt's `returns`. answer.ts is the whole
 * chat after the render; conversation.ts holds the loop's state and rules;
 * run.ts runs it plainly, stream.ts streamed.
 */
export { answerChat } from './answer'
export { RoundReader, readableOf } from './stream'
export type { ChatAnswer, ChatBody } from './answer'
export type { ChatOptions } from './options'
export type { Conversation } from './conversation'
