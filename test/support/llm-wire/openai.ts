// OpenAI's Chat Completions format (POST /v1/chat/completions): the request
// read, answers as `chat.completion` objects, streams as `chat.completion.chunk`
// events ending in `data: [DONE]`, errors as `{"error": {"message", "type", "code"?}}`.
import { pieces, statusOf, textOf } from './wire'
import type { ScriptedToolCall, StreamedReply, Trouble, Usage, Wire } from './wire'

export const COMPLETION_ID = 'chatcmpl-test'
export const CREATED = 1700000000
export const SYSTEM_FINGERPRINT = 'fp_test'

/** The answer's text for a request: `echo: ` and the last message's content (text parts joined). */
export function echoText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : []
  const last = messages.at(-1) as { content?: unknown } | undefined
  return `echo: ${textOf(last?.content, (part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))}`
}

export const openai: Wire = {
  serves: (pathname) => pathname === '/v1/chat/completions',
  read(_url, _headers, body) {
    const { model } = body
    if (typeof model !== 'string' || model === '') return { refused: 'you must provide a model parameter' }
    return { model, streamed: body.stream === true }
  },
  headers: [],
  echo: echoText,
  error(trouble, message) {
    const status = statusOf(trouble)
    return [status, { error: errorFields(trouble, status, message) }]
  },
  answer(model, { content, toolCalls, finishReason, usage }) {
    return completion(model, content, toolCalls, finishReason, usage)
  },
  events: streamEvents,
  // The role, then the first word.
  cutAfter: 2,
  stallAfter: 1,
  malformed: '{"id": "chatcmpl-test", "choices": [',
  rejected: ['{"error": {"type": "invalid_request_error", "message": "', '"}}'],
}

/** The type (and code) OpenAI gives each trouble, so clients classify name-based and scripted errors alike. */
function errorFields(trouble: Trouble, status: number, message: string): Record<string, string> {
  if (status === 429) return { message, type: 'requests', code: 'rate_limit_exceeded' }
  if (status >= 500) return { message, type: 'server_error' }
  if (trouble === 'missing-model') return { message, type: 'invalid_request_error', code: 'model_not_found' }
  if (trouble === 'no-route') return { message, type: 'invalid_request_error', code: 'unknown_url' }
  return { message, type: 'invalid_request_error' }
}

function completion(
  model: string,
  content: string | null,
  toolCalls: ScriptedToolCall[],
  finishReason: string,
  usage: Usage,
) {
  const message = {
    role: 'assistant',
    content,
    ...(toolCalls.length > 0
      ? { tool_calls: toolCalls.map(({ id, name, arguments: args }) => toolCall(id, name, args)) }
      : {}),
  }
  return {
    id: COMPLETION_ID,
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
    usage,
    system_fingerprint: SYSTEM_FINGERPRINT,
  }
}

function toolCall(id: string, name: string, args: string) {
  return { id, type: 'function', function: { name, arguments: args } }
}

/** One `chat.completion.chunk` event of `model`, carrying `delta`. */
function chunkEvent(
  model: string,
  delta: Record<string, unknown>,
  finishReason: string | null,
  extra: Record<string, unknown> = {},
): string {
  return sse({
    id: COMPLETION_ID,
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  })
}

/**
 * A stream's events: the role, a chunk per piece of text and per piece of each tool call, one with the finish
 * reason, the usage chunk when `stream_options.include_usage` asks for it (every chunk then carries
 * `usage: null`), then [DONE].
 */
function* streamEvents(model: string, reply: StreamedReply, body: Record<string, unknown>): Generator<string> {
  const options = body.stream_options as { include_usage?: unknown } | undefined
  const includeUsage = options?.include_usage === true
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    chunkEvent(model, delta, finish, includeUsage ? { usage: null } : {})
  // What OpenAI sends: a null content opens an answer that has none, '' one whose text follows.
  yield chunk({ role: 'assistant', content: reply.pieces === null ? null : '' }, null)
  for (const piece of reply.pieces ?? []) yield chunk({ content: piece }, null)
  for (const [index, { id, name, arguments: args }] of reply.toolCalls.entries()) {
    yield chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }, null)
    for (const piece of pieces(args)) yield chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null)
  }
  yield chunk({}, reply.finishReason)
  if (includeUsage) {
    yield sse({
      id: COMPLETION_ID,
      object: 'chat.completion.chunk',
      created: CREATED,
      model,
      choices: [],
      usage: reply.usage,
    })
  }
  yield 'data: [DONE]\n\n'
}

function sse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`
}
