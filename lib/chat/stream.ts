import { ServiceError } from '../errors'
import { isObject } from '../json'
import { sseEvents } from '../egress'
import type { ByteLimit, SseEvent } from '../egress'
import { errorEvent, sseEvent, stream } from '../llm'
import type { ChatMessage, ChatRequest, LlmClient, LlmOptions, ToolCallSpec } from '../llm'
import { boundToRequest } from '../log'
import type { Conversation } from './conversation'

/**
 * A streamed chat that loops. The caller reads one assistant message: the
 * text of every round as it arrives; a tool round announced as `event:
 * step` (`{step}`) once its calls are made, its tool-call chunks kept
 * back; the last round's remaining chunks as the provider sent them; then,
 * with `returns`, `event: parsed` (the check of the whole text: it cannot
 * be asked again, the text is out), `event: summary` (the count of
 * `steps`, the rounds' `usage` summed, and `stopped` or `tool_messages` when
 * the loop ended so), and `[DONE]`. A failure ends the stream with `event:
 * error` and no `[DONE]`, as a plain stream's does. The first request is
 * made before the answer starts, so that its failure is still an HTTP error.
 * Each request asks for its usage (`stream_options`: OpenAI's own, which
 * the other APIs' translations read); a provider that refuses the
 * parameter (400 naming it) is asked again without it, once, and the
 * chat's later rounds do without: its summary then has no usage.
 */
export async function streamConversation(
  conversation: Conversation,
  client: LlmClient,
  options: LlmOptions,
): Promise<ReadableStream<Uint8Array>> {
  let usageTaken = true
  const send = (request: ChatRequest) => stream(client, request, options, conversation.deadline)
  const ask = async () => {
    const { stream_options: _asked, ...request } = conversation.request()
    if (!usageTaken) return send(request)
    try {
      return await send({ ...request, stream_options: USAGE_ASKED })
    } catch (e) {
      if (!refusesUsage(e)) throw e
      usageTaken = false
      return send(request)
    }
  }
  let first: ReadableStream<Uint8Array>
  try {
    first = await ask()
  } catch (e) {
    await conversation.close()
    throw e
  }
  // stream() bounds each round at LLM_MAX_BYTES in all, and so the one event open in it.
  return readableOf(rounds(conversation, first, ask, { bytes: options.maxBytes, name: 'LLM_MAX_BYTES' }))
}

async function* rounds(
  conversation: Conversation,
  first: ReadableStream<Uint8Array>,
  ask: () => Promise<ReadableStream<Uint8Array>>,
  limit: ByteLimit,
): AsyncGenerator<string> {
  let body = first
  let usage: Usage | undefined
  try {
    for (;;) {
      const round = new RoundReader()
      for await (const event of sseEvents(body, limit)) {
        // The provider's failure, as stream() worded it: it ends the answer.
        if (event.name === 'error') return yield event.raw
        if (/^\s*\[DONE\]\s*$/.test(event.data)) break
        const now = round.take(event)
        if (now !== undefined) yield now
      }
      usage = summed(usage, round.usage)
      const next = await conversation.next(round.message(), round.usage, false)
      if (next.kind === 'again') {
        if (next.step) yield ourEvent('step', { step: next.step })
        body = await ask()
        continue
      }
      yield* round.held
      if (next.checked) {
        const { checked } = next
        yield ourEvent(
          'parsed',
          checked.ok
            ? { valid: true, parsed: checked.value, ...(checked.warnings ? { parse_warnings: checked.warnings } : {}) }
            : { valid: false, errors: checked.errors },
        )
      }
      // The steps went out one by one: what is left to say is how many, what they cost, and how the loop ended.
      const { steps: _said, ...fields } = conversation.answerFields(next)
      yield ourEvent('summary', { ...fields, steps: conversation.steps.length, ...(usage ? { usage } : {}) })
      yield 'data: [DONE]\n\n'
      return
    }
  } catch (e) {
    const error = e instanceof ServiceError ? e : new ServiceError('INTERNAL', 'internal error', { cause: e })
    yield errorEvent(error.code, error.message)
  } finally {
    await conversation.close()
  }
}

const USAGE_ASKED = { include_usage: true }

/** The provider's refusal of `stream_options` (OpenAI-compatible servers that predate it answer 400 naming it). */
function refusesUsage(e: unknown): boolean {
  return (
    e instanceof ServiceError &&
    e.code === 'LLM_REJECTED' &&
    e.message.startsWith('the provider refused the request (400)') &&
    e.message.includes('stream_options')
  )
}

const USAGE_FIELDS = ['prompt_tokens', 'completion_tokens', 'total_tokens'] as const
type Usage = Record<(typeof USAGE_FIELDS)[number], number>

/** The usage of the rounds so far and this round's, as the provider reported it (none said: as it was). */
function summed(total: Usage | undefined, round: unknown): Usage | undefined {
  if (!isObject(round)) return total
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : 0)
  return Object.fromEntries(USAGE_FIELDS.map((f) => [f, (total?.[f] ?? 0) + count(round[f])])) as Usage
}

/**
 * An event of ours in the provider's stream. Its data is also an empty
 * `chat.completion.chunk` (no choices, like a usage chunk): OpenAI's own
 * clients read every event's data as a chunk, whatever its name, and so
 * pass over it, while a client that reads event names finds its fields.
 */
function ourEvent(name: string, fields: Record<string, unknown>): string {
  return sseEvent(name, { object: 'chat.completion.chunk', choices: [], ...fields })
}

/**
 * One round of a stream: the chunks to forward now, those kept back, and
 * the message they add up to. Text is forwarded as it comes; from the first
 * chunk that carries tool calls, a finish reason or usage on, every chunk
 * is kept back (in order), until the round turns out to be the last.
 */
export class RoundReader {
  readonly held: string[] = []
  usage: unknown
  #content = ''
  readonly #calls: { id: string; name: string; arguments: string }[] = []

  take(event: SseEvent): string | undefined {
    const chunk = parse(event.data)
    const choice = isObject(chunk) && Array.isArray(chunk.choices) ? (chunk.choices[0] as unknown) : undefined
    const delta = isObject(choice) && isObject(choice.delta) ? choice.delta : {}
    if (isObject(chunk) && chunk.usage) this.usage = chunk.usage
    if (typeof delta.content === 'string') this.#content += delta.content
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.#addCall(call)
    const settled = Array.isArray(delta.tool_calls) || !isObject(choice) || choice.finish_reason
    if (this.held.length > 0 || (settled && isObject(chunk))) {
      this.held.push(event.raw)
      return undefined
    }
    return event.raw
  }

  /** The assistant message the round's chunks add up to. */
  message(): ChatMessage {
    const calls: ToolCallSpec[] = this.#calls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }))
    return { role: 'assistant', content: this.#content, ...(calls.length > 0 ? { tool_calls: calls } : {}) }
  }

  /** A tool call's delta: the first of a call has its id and name, later ones pieces of its arguments. */
  #addCall(delta: unknown): void {
    if (!isObject(delta) || typeof delta.index !== 'number') return
    const fn = isObject(delta.function) ? delta.function : {}
    const call = (this.#calls[delta.index] ??= { id: '', name: '', arguments: '' })
    if (typeof delta.id === 'string') call.id = delta.id
    if (typeof fn.name === 'string') call.name += fn.name
    if (typeof fn.arguments === 'string') call.arguments += fn.arguments
  }
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data)
  } catch {
    return undefined
  }
}

/**
 * A stream of text made by `events`, pulled as the caller reads: nothing is
 * made ahead of the reader, and a caller who leaves ends the generator
 * (its `finally`, the chat's connection with it).
 */
export function readableOf(events: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  // The stream outlives the handler: what it logs belongs to the request that started it.
  const pull = boundToRequest(async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const next = await events.next()
    if (next.done) controller.close()
    else controller.enqueue(encoder.encode(next.value))
  })
  return new ReadableStream<Uint8Array>({
    pull,
    async cancel() {
      await events.return(undefined)
    },
  })
}
