import type { PromptRecord } from '../catalog'
import { answerChat } from '../chat'
import type { ChatBody } from '../chat'
import { ServiceError } from '../errors'
import { isObject } from '../json'
import { clientFor, complete, modelFor, stream } from '../llm'
import type { ChatMessage, FunctionTool } from '../llm'
import { requestLog } from '../log'
import { renderPrompt } from '../render'
import type { RenderOptions, Rendered } from '../render'
import type { Settings } from '../settings'
import type { Store } from '../store'
import { chatChunks } from './chunks'
import { responseEvents } from './events'
import { promptRefOf } from './prompt-ref'
import type { PromptNaming, PromptRef } from './prompt-ref'
import { chatPartOf } from './request'
import type { ResponsesBody } from './request'
import { chatCompletionOf, responseOf } from './response'

/** What a /v1 call needs: the store its label sees, the settings, the render options. */
export interface OpenAiContext {
  store: Store
  settings: Pick<Settings, 'defaultModel' | 'llmConfigured' | 'llm' | 'chat' | 'llmRoute'>
  renderOptions: RenderOptions
}

/** A /v1 answer: its JSON or its event stream, and what the headers say of it. */
export interface OpenAiAnswer {
  body: string | ReadableStream<Uint8Array>
  streamed: boolean
  /** The OpenAI parameters the model's API cannot take, left out of the request. */
  dropped: readonly string[]
  /** The prompt's version served, and from which label; none for a pass-through. */
  served: Rendered['served']
  /** The Server-Timing header of the render and the chat; none for a pass-through. */
  timing: string | undefined
}

/** POST /v1/chat/completions' body: OpenAI's, a prompt named in it or not. */
export type ChatCompletionsBody = PromptNaming &
  Record<string, unknown> & {
    messages?: ChatMessage[] | undefined
    tools?: FunctionTool[] | undefined
    stream?: boolean | undefined
  }

/** The OpenAI parameters of a chat completions body passed on to the model behind a prompt. */
const PASSED = [
  'temperature',
  'top_p',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'n',
  'user',
  'seed',
  'response_format',
  'stream_options',
  'tool_choice',
  'parallel_tool_calls',
  'frequency_penalty',
  'presence_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
] as const

/**
 * POST /v1/responses: the stored prompt the body names rendered with its
 * variables and sent through the chat (/api/prompts/{id}/chat's: tools
 * while rendering, the prompt's tools called in rounds, `returns`
 * checked), `instructions` first and `input` after the rendered messages;
 * the answer in the Responses format.
 */
export async function answerResponses(body: ResponsesBody, context: OpenAiContext): Promise<OpenAiAnswer> {
  const ref = promptRefOf(body)
  if (!ref) {
    throw new ServiceError(
      'BAD_REQUEST',
      'the body names no stored prompt: send prompt: {id, version, variables}, prompt_id, or the model prompt:<id>',
      { extra: { param: 'prompt' } },
    )
  }
  const part = chatPartOf(body)
  const rendered = withInstructions(await renderRef(ref, context), body.instructions ?? undefined)
  const model = modelFor(ref.model ?? modelOfRecord(rendered.record), context.settings)
  const streamed = body.stream === true
  const chatBody: ChatBody = {
    ...part.parameters,
    model,
    messages: part.messages,
    ...toolsOf(rendered.record, part.tools),
    stream: streamed,
    // Responses always say their usage; chat streams say it when asked.
    ...(streamed ? { stream_options: { include_usage: true } } : {}),
  }
  const answer = await answerChat(ref.id, rendered, chatBody, context)
  const callers = new Set(part.tools.map((t) => t.function.name))
  const limit = { bytes: context.settings.llm.maxBytes, name: 'LLM_MAX_BYTES' }
  return {
    body:
      typeof answer.body === 'string'
        ? responseOf(answer.body, model, callers)
        : responseEvents(answer.body, model, callers, limit),
    streamed: answer.streamed,
    dropped: answer.dropped,
    served: rendered.served,
    timing: rendered.timing.header(),
  }
}

/**
 * POST /v1/chat/completions: with a stored prompt named, its render and
 * chat as /v1/responses has them, the body's messages after the rendered
 * ones, answered as OpenAI's chat completions (only their chunks on the
 * wire, usage summed over the steps); without, a plain pass-through to the
 * routed model.
 */
export async function answerChatCompletions(body: ChatCompletionsBody, context: OpenAiContext): Promise<OpenAiAnswer> {
  const ref = promptRefOf(body)
  if (!ref) return passThrough(body, context)
  const rendered = await renderRef(ref, context)
  const model = modelFor(ref.model ?? modelOfRecord(rendered.record), context.settings)
  const parameters = Object.fromEntries(PASSED.filter((name) => body[name] !== undefined).map((n) => [n, body[n]]))
  const chatBody: ChatBody = {
    ...parameters,
    model,
    messages: body.messages ?? [],
    ...toolsOf(rendered.record, body.tools ?? []),
    stream: body.stream === true,
  }
  const answer = await answerChat(ref.id, rendered, chatBody, context)
  const limit = { bytes: context.settings.llm.maxBytes, name: 'LLM_MAX_BYTES' }
  return {
    body:
      typeof answer.body === 'string'
        ? chatCompletionOf(answer.body)
        : chatChunks(answer.body, limit, isObject(body.stream_options) && body.stream_options.include_usage === true),
    streamed: answer.streamed,
    dropped: answer.dropped,
    served: rendered.served,
    timing: rendered.timing.header(),
  }
}

/** The routed model asked as the body asks it, under CHAT_TIMEOUT_MS: its answer as it came. */
async function passThrough(body: ChatCompletionsBody, context: OpenAiContext): Promise<OpenAiAnswer> {
  const { settings } = context
  const { model: requested, stream: streamed = false, ...request } = body
  const model = modelFor(requested, settings)
  requestLog()?.set('model', model)
  const client = clientFor(settings.llmRoute(model), settings.llm)
  const { deadlineMs } = settings.chat
  const reason = new ServiceError('CHAT_TIMEOUT', `the chat did not finish within CHAT_TIMEOUT_MS (${deadlineMs} ms)`)
  const deadline = { signal: timeoutSignal(deadlineMs, reason), at: Date.now() + deadlineMs }
  const sent = { ...request, model, messages: body.messages ?? [] }
  const answer = streamed
    ? await stream(client, sent, settings.llm, deadline)
    : JSON.stringify(await complete(client, sent, settings.llm, deadline))
  return { body: answer, streamed, dropped: [...(client.dropped ?? [])], served: undefined, timing: undefined }
}

/** A signal that aborts after `ms` with `reason` (AbortSignal.timeout's reason is a DOMException of its own). */
function timeoutSignal(ms: number, reason: ServiceError): AbortSignal {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(reason), ms)
  controller.signal.addEventListener('abort', () => clearTimeout(timer))
  return controller.signal
}

/** The prompt a body names, rendered as /render renders it (its version, its label, its variables checked). */
async function renderRef(ref: PromptRef, context: OpenAiContext): Promise<Rendered> {
  requestLog()?.set('prompt_id', ref.id)
  const options = { ...context.renderOptions, version: ref.version }
  const rendered = await renderPrompt(context.store, ref.id, ref.variables, options)
  requestLog()?.set('prompt_version', rendered.served?.version ?? null)
  return rendered
}

/** `instructions`, a system message before the prompt's own messages. */
function withInstructions(rendered: Rendered, instructions: string | undefined): Rendered {
  if (!instructions) return rendered
  const messages =
    typeof rendered.prompt === 'string' ? [{ role: 'user' as const, content: rendered.prompt }] : rendered.prompt
  return { ...rendered, prompt: [{ role: 'system', content: instructions }, ...messages] }
}

/** The model a prompt's record names for itself, if it does. */
function modelOfRecord(record: PromptRecord): string | undefined {
  return typeof record.model === 'string' && record.model !== '' ? record.model : undefined
}

/**
 * The tools a call offers: none said, the prompt's own (the chat's
 * default); the caller's function tools, added to the prompt's, which the
 * caller cannot name in OpenAI's shape.
 */
function toolsOf(record: PromptRecord, callers: readonly FunctionTool[]): Pick<ChatBody, 'tools'> {
  return callers.length === 0 ? {} : { tools: [...(record.tools ?? []), ...callers] }
}
