import { ServiceError, clip } from '../errors'
import type { ChatMessage, ContentPart, FunctionTool, ToolCallSpec } from '../llm'
import type { PromptNaming } from './prompt-ref'

/** One item of a Responses `input`: a message, a function call the model made, or its output. */
export interface InputItem {
  type?: string | undefined
  role?: string | undefined
  content?: string | readonly ContentPart[] | undefined
  call_id?: string | undefined
  name?: string | undefined
  arguments?: string | undefined
  output?: string | readonly ContentPart[] | undefined
  [field: string]: unknown
}

/** A Responses function tool: flat, where chat completions nest it under `function`. */
export interface ResponsesTool {
  type: 'function'
  name: string
  description?: string | null | undefined
  parameters?: Record<string, unknown> | null | undefined
  strict?: boolean | null | undefined
}

/** The subset of OpenAI's Responses request a prompt call reads. */
export interface ResponsesBody extends PromptNaming {
  input?: string | readonly InputItem[] | undefined
  instructions?: string | null | undefined
  tools?: readonly ResponsesTool[] | undefined
  tool_choice?: string | { type: string; name?: string | undefined } | undefined
  parallel_tool_calls?: boolean | null | undefined
  max_output_tokens?: number | null | undefined
  temperature?: number | null | undefined
  top_p?: number | null | undefined
  stream?: boolean | null | undefined
}

/** What a Responses request becomes for the chat: the caller's messages, tools and OpenAI parameters. */
export interface ChatPart {
  messages: ChatMessage[]
  tools: FunctionTool[]
  parameters: Record<string, unknown>
}

const ROLES: Readonly<Record<string, ChatMessage['role']>> = {
  user: 'user',
  assistant: 'assistant',
  system: 'system',
  developer: 'developer',
}

/**
 * A Responses body as a chat's: `input` (a string is one user message;
 * items are messages, and function calls and their outputs, which become
 * an assistant message's tool calls and tool messages), the function tools
 * unnested, `max_output_tokens` as `max_tokens`, and the sampling
 * parameters. `instructions` is not here: it goes before the prompt.
 */
export function chatPartOf(body: ResponsesBody): ChatPart {
  const parameters: Record<string, unknown> = {}
  if (body.max_output_tokens != null) parameters.max_tokens = body.max_output_tokens
  if (body.temperature != null) parameters.temperature = body.temperature
  if (body.top_p != null) parameters.top_p = body.top_p
  if (body.parallel_tool_calls != null) parameters.parallel_tool_calls = body.parallel_tool_calls
  if (body.tool_choice !== undefined) parameters.tool_choice = toolChoiceOf(body.tool_choice)
  return {
    messages: messagesOf(body.input),
    tools: (body.tools ?? []).map(functionToolOf),
    parameters,
  }
}

function messagesOf(input: ResponsesBody['input']): ChatMessage[] {
  if (input === undefined) return []
  if (typeof input === 'string') return [{ role: 'user', content: input }]
  const messages: ChatMessage[] = []
  input.forEach((item, i) => {
    const type = item.type ?? 'message'
    if (type === 'message') return void messages.push(messageOf(item, i))
    if (type === 'function_call') return addCall(messages, item, i)
    if (type === 'function_call_output') {
      return void messages.push({
        role: 'tool',
        tool_call_id: required(item.call_id, i, 'call_id'),
        content: textOf(item.output, i),
      })
    }
    throw badItem(i, `has type '${clip(type, 40)}': only message, function_call and function_call_output are taken`)
  })
  return messages
}

function messageOf(item: InputItem, i: number): ChatMessage {
  const role = item.role === undefined ? undefined : ROLES[item.role]
  if (!role) throw badItem(i, `has role '${clip(String(item.role), 40)}': one of ${Object.keys(ROLES).join(', ')}`)
  return { role, content: textOf(item.content, i) }
}

/** A function call the model made earlier: a tool call of the assistant message it belongs to (consecutive calls share one). */
function addCall(messages: ChatMessage[], item: InputItem, i: number): void {
  const call: ToolCallSpec = {
    id: required(item.call_id, i, 'call_id'),
    type: 'function',
    function: { name: required(item.name, i, 'name'), arguments: item.arguments ?? '{}' },
  }
  const last = messages.at(-1)
  if (last?.role === 'assistant' && last.tool_calls) last.tool_calls.push(call)
  else messages.push({ role: 'assistant', content: null, tool_calls: [call] })
}

/** Text content: a string, or text parts (`input_text`, `output_text`, `text`), joined. */
function textOf(content: InputItem['content'], i: number): string {
  if (content === undefined) return ''
  if (typeof content === 'string') return content
  return content
    .map((part) => {
      if (typeof part.text === 'string' && ['input_text', 'output_text', 'text'].includes(part.type)) return part.text
      throw badItem(i, `has a content part of type '${clip(part.type, 40)}': only text parts are taken`)
    })
    .join('')
}

function functionToolOf(tool: ResponsesTool): FunctionTool {
  const { name, description, parameters, strict } = tool
  const fn: FunctionTool['function'] = { name }
  if (description != null) fn.description = description
  if (parameters != null) fn.parameters = parameters
  if (strict != null) fn.strict = strict
  return { type: 'function', function: fn }
}

/** Responses' `{type: "function", name}` is chat's `{type: "function", function: {name}}`; the words are the same. */
function toolChoiceOf(choice: NonNullable<ResponsesBody['tool_choice']>): unknown {
  if (typeof choice === 'string') return choice
  if (choice.type === 'function' && choice.name !== undefined)
    return { type: 'function', function: { name: choice.name } }
  throw new ServiceError(
    'BAD_REQUEST',
    `tool_choice of type '${clip(choice.type, 40)}' is not taken: a function's, or auto, none, required`,
    {
      extra: { param: 'tool_choice' },
    },
  )
}

function required(value: string | undefined, i: number, name: string): string {
  if (value === undefined || value === '') throw badItem(i, `has no ${name}`)
  return value
}

function badItem(i: number, problem: string): ServiceError {
  return new ServiceError('BAD_REQUEST', `input[${i}] ${problem}`, { extra: { param: `input[${i}]` } })
}
