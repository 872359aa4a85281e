// Anthropic's Messages API (POST /v1/messages, `anthropic-version: 2023-06-01`):
// the request read, answers as `message` objects of content blocks, streams
// as named events (message_start, content_block_start/delta/stop, ping,
// message_delta, message_stop), errors as
// `{"type": "error", "error": {"type", "message"}}`.
import { argumentsObject, hasText, pieces, statusOf, textOf } from './wire'
import type { StreamedReply, Usage, Wire } from './wire'

export const MESSAGE_ID = 'msg_test'

/** Anthropic's stop reasons for OpenAI's finish reasons; any other goes out as it is (a script's `refusal`). */
const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
}

/** Anthropic's error type of each status; other 4XX are invalid requests, other 5XX api errors. */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
}

export const anthropic: Wire = {
  serves: (pathname) => pathname === '/v1/messages',
  read(_url, headers, body) {
    if (headers['anthropic-version'] === undefined) return { refused: 'anthropic-version: header is required' }
    const { model, max_tokens: maxTokens } = body
    if (typeof model !== 'string' || model === '') return { refused: 'model: Field required' }
    if (maxTokens === undefined) return { refused: 'max_tokens: Field required' }
    if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) {
      return { refused: 'max_tokens: Input should be a positive integer' }
    }
    return { model, streamed: body.stream === true }
  },
  headers: ['x-api-key', 'anthropic-version'],
  echo(body) {
    const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : []
    const last = messages.at(-1) as { content?: unknown } | undefined
    return `echo: ${textOf(last?.content, blockText)}`
  },
  error(trouble, message) {
    const status = trouble === 'overloaded' ? 529 : statusOf(trouble)
    const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error')
    return [status, { type: 'error', error: { type, message } }]
  },
  answer(model, reply) {
    const { content, toolCalls } = reply
    const blocks: Record<string, unknown>[] = hasText(content, toolCalls) ? [{ type: 'text', text: content ?? '' }] : []
    for (const call of toolCalls) {
      blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: argumentsObject(call, 'tool_use input') })
    }
    return message(model, blocks, stopReason(reply.finishReason), usageOf(reply.usage))
  },
  // Tool input streams as text (partial_json), so any scripted arguments can go out: nothing to check first.
  events: (model, reply) => streamEvents(model, reply),
  // message_start, the text block's start, the ping, the first word.
  cutAfter: 4,
  stallAfter: 1,
  malformed: '{"id": "msg_test", "type": "message", "role": "assistant", "content": [',
  rejected: ['{"type": "error", "error": {"type": "invalid_request_error", "message": "', '"}}'],
}

/** The text a block of a request's message carries: a text block's, or a tool result's content. */
function blockText(block: Record<string, unknown>): string {
  if (block.type === 'text' && typeof block.text === 'string') return block.text
  if (block.type === 'tool_result') return textOf(block.content, blockText)
  return ''
}

function stopReason(finishReason: string): string {
  return STOP_REASONS[finishReason] ?? finishReason
}

function usageOf(usage: Usage) {
  return { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens }
}

function message(
  model: string,
  content: Record<string, unknown>[],
  stop: string | null,
  usage: { input_tokens: number; output_tokens: number },
) {
  return {
    id: MESSAGE_ID,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  }
}

/** One named event; its data carries its type too, as Anthropic's do. */
function event(type: string, fields: Record<string, unknown> = {}): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`
}

/**
 * A stream as Anthropic sends one: message_start (no content yet, one output token), then each block (a text
 * block word by word, each tool_use block's input in pieces that are no JSON on their own, after an empty one as
 * Anthropic's begin), a ping once the first block has started, message_delta with the stop reason and the output
 * tokens, message_stop.
 */
function* streamEvents(model: string, reply: StreamedReply): Generator<string> {
  const { usage } = reply
  yield event('message_start', {
    message: message(model, [], null, { input_tokens: usage.prompt_tokens, output_tokens: 1 }),
  })
  let index = 0
  let pinged = false
  function* start(block: Record<string, unknown>): Generator<string> {
    yield event('content_block_start', { index, content_block: block })
    if (!pinged) {
      pinged = true
      yield event('ping')
    }
  }
  // The text block opens with its first piece, so that a text of no pieces needs none unless nothing follows.
  let open = false
  for (const piece of reply.pieces ?? []) {
    if (!open) {
      yield* start({ type: 'text', text: '' })
      open = true
    }
    yield event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } })
  }
  if (!open && hasText(null, reply.toolCalls)) {
    yield* start({ type: 'text', text: '' })
    open = true
  }
  if (open) yield event('content_block_stop', { index: index++ })
  for (const { id, name, arguments: args } of reply.toolCalls) {
    yield* start({ type: 'tool_use', id, name, input: {} })
    for (const piece of ['', ...pieces(args)]) {
      yield event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } })
    }
    yield event('content_block_stop', { index: index++ })
  }
  yield event('message_delta', {
    delta: { stop_reason: stopReason(reply.finishReason), stop_sequence: null },
    usage: { output_tokens: usage.completion_tokens },
  })
  yield event('message_stop')
}
