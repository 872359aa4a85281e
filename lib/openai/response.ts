import { isObject } from '../json'
import type { ChatMessage, Completion, ToolCallSpec } from '../llm'

/** Chat completions' usage, as the chat layer reports it: a request's, or several summed. */
export interface ChatUsage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
}

/** An id of the kind OpenAI gives (`resp_…`, `msg_…`, `fc_…`): unique, not secret. */
export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replace(/-/g, '')}`
}

/** A provider's usage read leniently: what is not a count counts 0. */
export function usageOf(raw: unknown): ChatUsage {
  const count = (name: string) => (isObject(raw) && typeof raw[name] === 'number' ? raw[name] : 0)
  const prompt = count('prompt_tokens')
  const completion = count('completion_tokens')
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: count('total_tokens') || prompt + completion,
  }
}

/** Usages summed: every step of a tool loop pays for its own request. */
export function addUsage(a: ChatUsage, b: ChatUsage): ChatUsage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  }
}

/** The usage of a chat's answer: its last request's, plus that of each tool round (its `steps`). */
export function chatUsageOf(completion: Completion): ChatUsage | undefined {
  const steps = Array.isArray(completion.steps) ? (completion.steps as unknown[]) : []
  const stepUsages = steps.flatMap((s) => (isObject(s) && s.usage ? [usageOf(s.usage)] : []))
  if (completion.usage === undefined && stepUsages.length === 0) return undefined
  return [...stepUsages, usageOf(completion.usage)].reduce(addUsage)
}

/** A chat completion as /v1/chat/completions answers it: the chat layer's, its usage that of every step. */
export function chatCompletionOf(json: string): string {
  const completion = JSON.parse(json) as Completion
  const usage = chatUsageOf(completion)
  return JSON.stringify(usage ? { ...completion, usage } : completion)
}

/** Responses' usage, from chat's. */
export function responsesUsage(usage: ChatUsage) {
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens,
  }
}

/** The `message` output item of an answer's text. */
export function messageItem(id: string, text: string, status: 'in_progress' | 'completed') {
  return {
    type: 'message' as const,
    id,
    status,
    role: 'assistant' as const,
    content: status === 'completed' ? [outputText(text)] : [],
  }
}

export function outputText(text: string) {
  return { type: 'output_text' as const, text, annotations: [] as unknown[] }
}

/** A `function_call` output item: a call of the caller's tool, for the caller to make. */
export function functionCallItem(call: ToolCallSpec) {
  return {
    type: 'function_call' as const,
    id: newId('fc'),
    call_id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
    status: 'completed' as const,
  }
}

/** A Responses `response` object: in progress (no output yet), or completed. */
export function responseObject(
  id: string,
  model: string,
  output: readonly unknown[],
  usage: ChatUsage | undefined,
  status: 'in_progress' | 'completed',
) {
  const text = output
    .flatMap((item) => (isObject(item) && item.type === 'message' && Array.isArray(item.content) ? item.content : []))
    .map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : ''))
    .join('')
  return {
    id,
    object: 'response' as const,
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    model,
    output,
    output_text: text,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [] as unknown[],
    usage: usage ? responsesUsage(usage) : null,
  }
}

/**
 * The chat's answer (a chat completion, with `steps` after tool rounds)
 * as a Responses answer: the assistant's text as a `message` item, each
 * call of the caller's tools (`callers`, by name) as a `function_call`
 * item, and the usage of every step summed.
 */
export function responseOf(json: string, model: string, callers: ReadonlySet<string>): string {
  const completion = JSON.parse(json) as Completion
  const message: ChatMessage = completion.choices[0]?.message ?? { role: 'assistant' }
  const text = typeof message.content === 'string' ? message.content : ''
  const calls = (message.tool_calls ?? []).filter((call) => callers.has(call.function.name))
  const output = [
    ...(text !== '' || calls.length === 0 ? [messageItem(newId('msg'), text, 'completed')] : []),
    ...calls.map(functionCallItem),
  ]
  const answeredBy = typeof completion.model === 'string' ? completion.model : model
  return JSON.stringify(responseObject(newId('resp'), answeredBy, output, chatUsageOf(completion), 'completed'))
}
