/**
 * Anthropic's Messages API (https://docs.anthropic.com/en/api/messages),
 * version ANTHROPIC_VERSION, spoken for OpenAI's chat completions: system
 * and developer messages become `system`, tool calls `tool_use` blocks,
 * tool messages `tool_result` blocks of the user's turn; the answer and its
 * stream (`message_start`, `content_block_*`, `message_delta`,
 * `message_stop`) come back as a chat completion and its chunks.
 */
import type { SseEvent } from '../egress'
import { isObject } from '../json'
import { argumentsOf, chunk, ending, failedMidAnswer, imageOf, instructionsOf, now, textOf, usageOf } from './native'
import type { Dialect, StreamTranslator } from './native'
import type { Completion, ToolCallSpec } from './types'

/** The API version implemented here, and sent as `anthropic-version`: its parameters are the ones sent. */
const ANTHROPIC_VERSION = '2023-06-01'
/** `max_tokens`, which Anthropic requires, when neither the request nor the route (`maxTokens`) sets one. */
const ANTHROPIC_MAX_TOKENS = 4096

/** OpenAI parameters this version takes, translated; any other is left out. */
const TAKEN = new Set(['model', 'messages', 'stream', 'stream_options', 'max_tokens', 'temperature', 'top_p', 'stop'])
const TOOLING = new Set(['tools', 'tool_choice', 'parallel_tool_calls', 'user'])

const FINISH: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
}

type Block = Record<string, unknown>
type Turn = { role: 'user' | 'assistant'; content: Block[] }

export const anthropic: Dialect = {
  request(route, body) {
    const { model, messages, stream, max_tokens: maxTokens, temperature, top_p: topP, stop, user } = body
    const dropped = Object.keys(body).filter((k) => !TAKEN.has(k) && !TOOLING.has(k))
    const list = Array.isArray(messages) ? (messages as Record<string, unknown>[]) : []
    const system = instructionsOf(list)
    const out: Record<string, unknown> = {
      model,
      max_tokens: maxTokens ?? route.maxTokens ?? ANTHROPIC_MAX_TOKENS,
      messages: turnsOf(list, dropped),
    }
    if (system !== '') out.system = system
    if (temperature !== undefined) out.temperature = temperature
    if (topP !== undefined) out.top_p = topP
    if (stop !== undefined) out.stop_sequences = typeof stop === 'string' ? [stop] : stop
    if (stream === true) out.stream = true
    if (typeof user === 'string') out.metadata = { user_id: user }
    Object.assign(out, toolsOf(body))
    const headers = {
      'content-type': 'application/json',
      'anthropic-version': ANTHROPIC_VERSION,
      'x-api-key': route.apiKey,
    }
    return { url: `${route.baseURL.replace(/\/+$/, '')}/v1/messages`, headers, body: out, dropped }
  },

  answer(json, model) {
    if (!isObject(json) || json.type !== 'message' || !Array.isArray(json.content)) return undefined
    const blocks = json.content.filter(isObject)
    const text = blocks.map((b) => (b.type === 'text' ? String(b.text ?? '') : '')).join('')
    const calls: ToolCallSpec[] = blocks.flatMap((b) =>
      b.type === 'tool_use'
        ? [
            {
              id: String(b.id),
              type: 'function',
              function: { name: String(b.name), arguments: JSON.stringify(b.input ?? {}) },
            },
          ]
        : [],
    )
    const message = {
      role: 'assistant' as const,
      content: text === '' && calls.length > 0 ? null : text,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    }
    const finish = FINISH[String(json.stop_reason)] ?? 'stop'
    return {
      id: String(json.id),
      object: 'chat.completion',
      created: now(),
      model: typeof json.model === 'string' ? json.model : model,
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage: usage(json.usage),
    } satisfies Completion
  },

  stream(model, includeUsage) {
    return new AnthropicStream(model, includeUsage)
  },
}

/** The messages other than system and developer as Anthropic's turns; tool answers join the user's turn. */
function turnsOf(messages: readonly Record<string, unknown>[], dropped: string[]): Turn[] {
  const turns: Turn[] = []
  for (const m of messages) {
    let turn: Turn
    if (m.role === 'assistant') {
      const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as ToolCallSpec[]) : []
      const uses = calls.map((c) => ({
        type: 'tool_use',
        id: c.id,
        name: c.function.name,
        input: argumentsOf(c.function.arguments),
      }))
      turn = { role: 'assistant', content: [...blocksOf(m.content, dropped), ...uses] }
    } else if (m.role === 'tool') {
      turn = {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: m.tool_call_id, content: textOf(m.content) }],
      }
    } else if (m.role === 'user') {
      turn = { role: 'user', content: blocksOf(m.content, dropped) }
    } else continue
    const last = turns.at(-1)
    if (last?.role === turn.role) last.content.push(...turn.content)
    else turns.push(turn)
  }
  return turns
}

/** OpenAI content as Anthropic's blocks: text, and images by URL or data URL; empty text is left out, as Anthropic refuses it. */
function blocksOf(content: unknown, dropped: string[]): Block[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }]
  if (!Array.isArray(content)) return []
  return content.filter(isObject).flatMap((part): Block[] => {
    if (part.type === 'text')
      return typeof part.text === 'string' && part.text !== '' ? [{ type: 'text', text: part.text }] : []
    const image = imageOf(part)
    if (image) {
      const source =
        'url' in image ? { type: 'url', url: image.url } : { type: 'base64', media_type: image.mime, data: image.data }
      return [{ type: 'image', source }]
    }
    dropped.push(`content part ${String(part.type)}`)
    return []
  })
}

/** OpenAI's function tools and tool_choice as Anthropic's. */
function toolsOf(body: Record<string, unknown>): Record<string, unknown> {
  const { tools, tool_choice: choice, parallel_tool_calls: parallel } = body
  if (!Array.isArray(tools) || tools.length === 0) return {}
  const out: Record<string, unknown> = {
    tools: (tools as { function: Record<string, unknown> }[]).map(({ function: f }) => ({
      name: f.name,
      ...(f.description === undefined ? {} : { description: f.description }),
      input_schema: f.parameters ?? { type: 'object' },
    })),
  }
  let toolChoice: Record<string, unknown> | undefined
  if (choice === 'auto') toolChoice = { type: 'auto' }
  else if (choice === 'required') toolChoice = { type: 'any' }
  else if (choice === 'none') toolChoice = { type: 'none' }
  else if (isObject(choice) && isObject(choice.function)) toolChoice = { type: 'tool', name: choice.function.name }
  if (parallel === false) toolChoice = { ...(toolChoice ?? { type: 'auto' }), disable_parallel_tool_use: true }
  if (toolChoice) out.tool_choice = toolChoice
  return out
}

/** Anthropic's usage, OpenAI's way: cached input counts as input. */
function usage(value: unknown) {
  const u = isObject(value) ? value : {}
  const n = (k: string) => (typeof u[k] === 'number' ? (u[k] as number) : 0)
  return usageOf(
    n('input_tokens') + n('cache_creation_input_tokens') + n('cache_read_input_tokens'),
    n('output_tokens'),
  )
}

/** One streamed message, event by event. */
class AnthropicStream implements StreamTranslator {
  readonly #head = { id: '', model: '', created: now() }
  /** The OpenAI tool-call index of each tool_use block, by block index. */
  readonly #tools = new Map<number, number>()
  #input: unknown
  #output = 0
  #finish = 'stop'
  #started = false
  #done = false

  constructor(
    model: string,
    readonly includeUsage: boolean,
  ) {
    this.#head.model = model
  }

  next(event: SseEvent): string {
    const data = parse(event.data)
    const head = this.#head
    switch (data.type) {
      case 'message_start': {
        const message = isObject(data.message) ? data.message : {}
        head.id = String(message.id ?? '')
        if (typeof message.model === 'string') head.model = message.model
        this.#input = message.usage
        return ''
      }
      case 'content_block_start': {
        const block = isObject(data.content_block) ? data.content_block : {}
        const role = this.#role(block.type === 'tool_use' ? null : '')
        if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
          return role + chunk(head, { content: block.text })
        }
        if (block.type !== 'tool_use') return role
        const index = this.#tools.size
        this.#tools.set(Number(data.index), index)
        const call = { index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }
        return role + chunk(head, { tool_calls: [call] })
      }
      case 'content_block_delta': {
        const delta = isObject(data.delta) ? data.delta : {}
        if (delta.type === 'text_delta') return chunk(head, { content: delta.text })
        const index = this.#tools.get(Number(data.index))
        if (delta.type !== 'input_json_delta' || index === undefined) return ''
        return chunk(head, { tool_calls: [{ index, function: { arguments: delta.partial_json } }] })
      }
      case 'message_delta': {
        const delta = isObject(data.delta) ? data.delta : {}
        this.#finish = FINISH[String(delta.stop_reason)] ?? 'stop'
        if (isObject(data.usage) && typeof data.usage.output_tokens === 'number')
          this.#output = data.usage.output_tokens
        return ''
      }
      case 'message_stop': {
        this.#done = true
        const role = this.#role('')
        const totals = usage({ ...(isObject(this.#input) ? this.#input : {}), output_tokens: this.#output })
        return role + ending(head, this.#finish, totals, this.includeUsage)
      }
      case 'error': {
        const error = isObject(data.error) ? data.error : {}
        throw failedMidAnswer(error.type, error.message)
      }
      default:
        return ''
    }
  }

  end(): string {
    if (!this.#done) throw new Error('the provider ended the stream before message_stop')
    return ''
  }

  /**
   * The first chunk, with the role, as OpenAI sends it: its content null
   * when the answer begins with a tool call, else empty. Sent with the first
   * block, once its kind is known.
   */
  #role(content: '' | null): string {
    if (this.#started) return ''
    this.#started = true
    return chunk(this.#head, { role: 'assistant', content })
  }
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) ? value : {}
  } catch {
    return {}
  }
}
