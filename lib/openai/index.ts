/**
 * The OpenAI-compatible front door's wire formats (/v1): which stored
 * prompt a body names (prompt-ref.ts), a Responses request as a chat's
 * (request.ts), the chat's answer as a Responses answer (response.ts) or
 * its stream as Responses events (events.ts) or as plain chat chunks
 * (chunks.ts), the models listed (models.ts), and errors in OpenAI's shape
 * (errors.ts). answer.ts runs a call through lib/chat.
 */
export { answerChatCompletions, answerResponses } from './answer'
export type { ChatCompletionsBody, OpenAiAnswer, OpenAiContext } from './answer'
export { openaiError } from './errors'
export { modelList } from './models'
export type { InputItem, ResponsesBody, ResponsesTool } from './request'
