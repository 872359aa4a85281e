import { normalizeParameters } from '../catalog'
import type { Tool } from '../catalog'
import { ServiceError, clip } from '../errors'
import { isObject } from '../json'
import type { ChatMessage, FunctionTool, ToolCallSpec } from '../llm'
import { log } from '../log'
import type { Outcome, ToolSession } from '../tools'
import type { Budget } from './budget'

/** The tools a chat offers the model: the prompt's own, which the service calls, and the caller's, which it does not. */
export interface Offered {
  /** The prompt's tools offered, by function name. */
  ours: Map<string, Tool>
  /** The function names of the caller's own tools: their calls go back to the caller. */
  callers: Set<string>
  /** What the request to the provider carries as `tools`: ours, then the caller's as given. */
  definitions: FunctionTool[]
}

/**
 * What the model is offered. The prompt declares the tools it may call
 * (`tools`, function names); the body's `tools` list, when given, is the
 * list: the ids it names (each one the prompt declares) and the caller's
 * own function tools (objects, passed on untouched). `tool_choice: "none"`
 * offers nothing at all. A declared tool the catalogue lacks is left out
 * and logged: a careless publisher costs the model a tool, not every chat.
 */
export function offeredTools(
  declared: readonly string[],
  requested: readonly (string | FunctionTool)[] | undefined,
  choice: unknown,
  catalogue: readonly Tool[],
): Offered {
  const offered: Offered = { ours: new Map(), callers: new Set(), definitions: [] }
  if (choice === 'none') return offered
  const ids = requested === undefined ? declared : requested.filter((t) => typeof t === 'string')
  requested?.forEach((t, i) => {
    if (typeof t === 'string' && !declared.includes(t)) {
      const which = declared.length > 0 ? `it declares ${declared.join(', ')}` : 'it declares none'
      throw new ServiceError('BAD_REQUEST', `tools[${i}] '${t}' is not a tool of this prompt: ${which}`)
    }
  })
  const byId = new Map(catalogue.map((t) => [t.id, t]))
  for (const id of ids) {
    const tool = byId.get(id)
    if (!tool) {
      log.warn('a tool the prompt declares is not in the catalogue', { tool: id })
      continue
    }
    offered.ours.set(id, tool)
    offered.definitions.push(definitionOf(tool))
  }
  requested?.forEach((t, i) => {
    if (typeof t === 'string') return
    const name = t.function.name
    if (offered.ours.has(name) || offered.callers.has(name)) {
      throw new ServiceError('BAD_REQUEST', `tools[${i}] is named '${name}', which another offered tool is named`)
    }
    offered.callers.add(name)
    offered.definitions.push(t)
  })
  return offered
}

/** A catalogue tool as OpenAI's function tool: its function name, description and parameters' JSON Schema. */
function definitionOf(tool: Tool): FunctionTool {
  const { description, parameters } = tool.record
  return { type: 'function', function: { name: tool.id, description, parameters: normalizeParameters(parameters) } }
}

/** One tool call the service made for the model, as the answer's `steps` list it. */
export interface StepCall {
  id: string
  tool: string
  /**
   * The model's arguments, parsed; its text when it was not a JSON object;
   * when longer than STEP_ARGUMENT_CHARS, the start of its text.
   */
  arguments: unknown
  /** The length of arguments echoed only in part. */
  arguments_chars?: number
  ms: number
  outcome: 'ok' | 'failed'
  /** The tool message's text as the model was sent it (the answer, or why it failed); past STEP_ECHO_CHARS, its start. */
  result: string
  /** The length of a result echoed only in part. */
  result_chars?: number
}

/**
 * Characters of a call's arguments, and of its result, the answer echoes in
 * `steps`: enough to see what was asked and answered, never the megabytes a
 * model can write into a call or a tool answer.
 */
const STEP_ECHO_CHARS = 4096

/** A tool round: the calls made, and the `tool` messages that answer them, in the order of the calls. */
export interface Round {
  calls: StepCall[]
  answers: ChatMessage[]
}

/**
 * Makes the calls of one assistant message, concurrently, through the
 * session a template's calls use (validation, allow-list, timeouts, the
 * cap on calls). Each is answered by a `tool` message: the tool's answer as
 * JSON, or the reason it failed. `budget` is what the conversation may
 * still take; an answer past it fails (its error fits in what the call's
 * turn took), so that no round of calls can grow the next request without
 * bound.
 */
export async function runCalls(
  session: ToolSession,
  calls: readonly ToolCallSpec[],
  ours: ReadonlyMap<string, Tool>,
  budget: Budget,
): Promise<Round> {
  const made = await Promise.all(
    calls.map(async (call) => {
      const started = Date.now()
      const args = parseArguments(call.function.arguments)
      const tool = ours.get(call.function.name)
      let outcome: Outcome
      if (!tool) outcome = { ok: false, reason: `there is no tool named '${call.function.name}'` }
      else if (!isObject(args)) outcome = { ok: false, reason: 'the arguments are not a JSON object' }
      else outcome = await session.invoke(tool, args)
      return { call, args, outcome, ms: Date.now() - started }
    }),
  )
  const round: Round = { calls: [], answers: [] }
  for (const { call, args, outcome, ms } of made) {
    let content = outcome.ok ? textOf(outcome.value) : `error: ${outcome.reason}`
    let ok = outcome.ok
    if (!budget.take(content.length)) {
      content = `error: the answer (${content.length} characters) is more than the conversation may still take (${budget.left} of LLM_MAX_BYTES)`
      ok = false
    }
    const { name, arguments: text } = call.function
    const step = {
      id: call.id,
      tool: name,
      ...echoed(text, args),
      ms,
      outcome: ok ? ('ok' as const) : ('failed' as const),
      result: clip(content, STEP_ECHO_CHARS),
      ...(content.length > STEP_ECHO_CHARS ? { result_chars: content.length } : {}),
    }
    round.calls.push(step)
    round.answers.push({ role: 'tool', tool_call_id: call.id, content })
  }
  return round
}

/** A call's arguments as `steps` echo them: parsed, or the start of their text past STEP_ECHO_CHARS. */
function echoed(text: unknown, args: unknown): Pick<StepCall, 'arguments' | 'arguments_chars'> {
  if (typeof text !== 'string' || text.length <= STEP_ECHO_CHARS) return { arguments: args }
  return { arguments: clip(text, STEP_ECHO_CHARS), arguments_chars: text.length }
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** A tool's answer as a tool message's text: a string as it is, anything else as JSON. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value
  return JSON.stringify(value) ?? ''
}
