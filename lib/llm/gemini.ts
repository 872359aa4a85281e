/**
 * Google's Gemini API (v1beta `models.generateContent`, and
 * `streamGenerateContent?alt=sse`), spoken for OpenAI's chat completions:
 * system and developer messages become `systemInstruction`, the
 * assistant's turns `model` contents, tool calls `functionCall` parts and
 * tool messages `functionResponse` parts; the answer and its stream come
 * back as a chat completion and its chunks.
 */
import type { SseEvent } from '../egress'
import { isObject } from '../json'
import { argumentsOf, chunk, ending, failedMidAnswer, imageOf, instructionsOf, now, textOf, usageOf } from './native'
import type { Dialect, StreamTranslator } from './native'
import type { ChatMessage, Completion, ToolCallSpec } from './types'

/** The API version implemented here, in every URL. */
const GEMINI_VERSION = 'v1beta'

/** OpenAI parameters Gemini takes, translated; any other is left out. */
const TAKEN = new Set([
  ...['model', 'messages', 'stream', 'stream_options', 'max_tokens', 'temperature', 'top_p', 'stop', 'n', 'seed'],
  ...['response_format', 'tools', 'tool_choice'],
])

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY'])

type Part = Record<string, unknown>
type Content = { role: 'user' | 'model'; parts: Part[] }

export const gemini: Dialect = {
  request(route, body) {
    const { model, messages, stream } = body
    const dropped = Object.keys(body).filter((k) => !TAKEN.has(k))
    const list = Array.isArray(messages) ? (messages as ChatMessage[]) : []
    const system = instructionsOf(list)
    const out: Record<string, unknown> = { contents: contentsOf(list, dropped) }
    if (system !== '') out.systemInstruction = { parts: [{ text: system }] }
    Object.assign(out, toolsOf(body))
    const config = generationConfig(body, route.maxTokens)
    if (Object.keys(config).length > 0) out.generationConfig = config
    const method = stream === true ? 'streamGenerateContent?alt=sse' : 'generateContent'
    const base = route.baseURL.replace(/\/+$/, '')
    return {
      url: `${base}/${GEMINI_VERSION}/models/${encodeURIComponent(String(model))}:${method}`,
      headers: { 'content-type': 'application/json', 'x-goog-api-key': route.apiKey },
      body: out,
      dropped,
    }
  },

  answer(json, model) {
    if (!isObject(json) || (!Array.isArray(json.candidates) && !isObject(json.promptFeedback))) return undefined
    const turn = new Turn()
    const candidate = Array.isArray(json.candidates) && isObject(json.candidates[0]) ? json.candidates[0] : {}
    for (const part of partsOf(candidate)) turn.add(part)
    const calls = turn.calls
    const message = {
      role: 'assistant' as const,
      content: turn.text === '' && calls.length > 0 ? null : turn.text,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    }
    return {
      id: String(json.responseId ?? ''),
      object: 'chat.completion',
      created: now(),
      model: typeof json.modelVersion === 'string' ? json.modelVersion : model,
      choices: [
        { index: 0, message, finish_reason: finishOf(candidate.finishReason, calls.length > 0), logprobs: null },
      ],
      usage: usage(json.usageMetadata),
    } satisfies Completion
  },

  stream(model, includeUsage) {
    return new GeminiStream(model, includeUsage)
  },
}

/** The conversation as Gemini's contents; a tool's answer names its function, found by the call's id. */
function contentsOf(messages: readonly ChatMessage[], dropped: string[]): Content[] {
  const names = new Map<string, string>()
  const contents: Content[] = []
  for (const m of messages) {
    let content: Content
    if (m.role === 'assistant') {
      const calls = m.tool_calls ?? []
      for (const c of calls) names.set(c.id, c.function.name)
      const parts = calls.map((c) => ({
        functionCall: { id: c.id, name: c.function.name, args: argumentsOf(c.function.arguments) },
      }))
      content = { role: 'model', parts: [...partsFrom(m.content, dropped), ...parts] }
    } else if (m.role === 'tool') {
      const id = String(m.tool_call_id)
      const answer = textOf(m.content)
      const response = jsonObject(answer) ?? { result: answer }
      content = { role: 'user', parts: [{ functionResponse: { id, name: names.get(id) ?? id, response } }] }
    } else if (m.role === 'user') {
      content = { role: 'user', parts: partsFrom(m.content, dropped) }
    } else continue
    const last = contents.at(-1)
    if (last?.role === content.role) last.parts.push(...content.parts)
    else contents.push(content)
  }
  return contents
}

/** OpenAI content as Gemini's parts: text, and images as inline data or by URI. */
function partsFrom(content: unknown, dropped: string[]): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }]
  if (!Array.isArray(content)) return []
  return content.filter(isObject).flatMap((part): Part[] => {
    if (part.type === 'text') return typeof part.text === 'string' ? [{ text: part.text }] : []
    const image = imageOf(part)
    if (image)
      return [
        'url' in image
          ? { fileData: { fileUri: image.url } }
          : { inlineData: { mimeType: image.mime, data: image.data } },
      ]
    dropped.push(`content part ${String(part.type)}`)
    return []
  })
}

function toolsOf(body: Record<string, unknown>): Record<string, unknown> {
  const { tools, tool_choice: choice } = body
  if (!Array.isArray(tools) || tools.length === 0) return {}
  const declarations = (tools as { function: Record<string, unknown> }[]).map(({ function: f }) => ({
    name: f.name,
    ...(f.description === undefined ? {} : { description: f.description }),
    parametersJsonSchema: f.parameters ?? { type: 'object' },
  }))
  const out: Record<string, unknown> = { tools: [{ functionDeclarations: declarations }] }
  let config: Record<string, unknown> | undefined
  if (choice === 'auto') config = { mode: 'AUTO' }
  else if (choice === 'required') config = { mode: 'ANY' }
  else if (choice === 'none') config = { mode: 'NONE' }
  else if (isObject(choice) && isObject(choice.function))
    config = { mode: 'ANY', allowedFunctionNames: [choice.function.name] }
  if (config) out.toolConfig = { functionCallingConfig: config }
  return out
}

function generationConfig(body: Record<string, unknown>, routeMax: number | undefined): Record<string, unknown> {
  const { max_tokens: maxTokens = routeMax, temperature, top_p: topP, stop, n, seed, response_format: format } = body
  const config: Record<string, unknown> = {}
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens
  if (temperature !== undefined) config.temperature = temperature
  if (topP !== undefined) config.topP = topP
  if (stop !== undefined) config.stopSequences = typeof stop === 'string' ? [stop] : stop
  if (n !== undefined) config.candidateCount = n
  if (seed !== undefined) config.seed = seed
  if (isObject(format) && (format.type === 'json_object' || format.type === 'json_schema')) {
    config.responseMimeType = 'application/json'
    const schema = isObject(format.json_schema) ? format.json_schema.schema : undefined
    if (schema !== undefined) config.responseJsonSchema = schema
  }
  return config
}

/** What a candidate's parts add up to: text, and calls each with an id (Gemini's own, or made up in order). */
class Turn {
  text = ''
  readonly calls: ToolCallSpec[] = []

  /** Adds a part; answers the call it made, if any. */
  add(part: Part): ToolCallSpec | undefined {
    if (typeof part.text === 'string' && part.thought !== true) this.text += part.text
    if (!isObject(part.functionCall)) return undefined
    const { id, name, args } = part.functionCall
    const call: ToolCallSpec = {
      id: typeof id === 'string' && id !== '' ? id : `call_${this.calls.length}`,
      type: 'function',
      function: { name: String(name), arguments: JSON.stringify(args ?? {}) },
    }
    this.calls.push(call)
    return call
  }
}

function partsOf(candidate: Record<string, unknown>): Part[] {
  const content = isObject(candidate.content) ? candidate.content : {}
  return Array.isArray(content.parts) ? content.parts.filter(isObject) : []
}

function finishOf(reason: unknown, called: boolean): string {
  if (called) return 'tool_calls'
  if (reason === 'MAX_TOKENS') return 'length'
  return FILTERED.has(String(reason)) ? 'content_filter' : 'stop'
}

/** Gemini's usage, OpenAI's way: the model's thinking counts as completion, as OpenAI counts reasoning. */
function usage(value: unknown) {
  const u = isObject(value) ? value : {}
  const n = (k: string) => (typeof u[k] === 'number' ? (u[k] as number) : 0)
  const prompt = n('promptTokenCount')
  const completion = n('candidatesTokenCount') + n('thoughtsTokenCount')
  return usageOf(prompt, completion, n('totalTokenCount') || prompt + completion)
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** One streamed answer: each event a partial GenerateContentResponse; the stream's end is the answer's. */
class GeminiStream implements StreamTranslator {
  readonly #head = { id: '', model: '', created: now() }
  readonly #turn = new Turn()
  #finish: unknown
  #usage: unknown
  #started = false

  constructor(
    model: string,
    readonly includeUsage: boolean,
  ) {
    this.#head.model = model
  }

  next(event: SseEvent): string {
    const data = jsonObject(event.data) ?? {}
    if (isObject(data.error)) {
      throw failedMidAnswer(data.error.status, data.error.message)
    }
    const head = this.#head
    let out = ''
    const candidate = Array.isArray(data.candidates) && isObject(data.candidates[0]) ? data.candidates[0] : {}
    const parts = partsOf(candidate)
    if (!this.#started) {
      // OpenAI's first chunk: the role, its content null when the answer begins with a tool call.
      this.#started = true
      head.id = String(data.responseId ?? '')
      out += chunk(head, { role: 'assistant', content: isObject(parts[0]?.functionCall) ? null : '' })
    }
    for (const part of parts) {
      const before = this.#turn.text.length
      const call = this.#turn.add(part)
      if (this.#turn.text.length > before) out += chunk(head, { content: this.#turn.text.slice(before) })
      if (call) out += chunk(head, { tool_calls: [{ index: this.#turn.calls.length - 1, ...call }] })
    }
    if (candidate.finishReason !== undefined) this.#finish = candidate.finishReason
    if (data.usageMetadata !== undefined) this.#usage = data.usageMetadata
    return out
  }

  end(): string {
    if (this.#finish === undefined) throw new Error('the provider ended the stream before its last answer')
    const finish = finishOf(this.#finish, this.#turn.calls.length > 0)
    return ending(this.#head, finish, usage(this.#usage), this.includeUsage)
  }
}
