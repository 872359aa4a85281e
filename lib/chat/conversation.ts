import type { JsonSchema } from '../catalog'
import { ServiceError } from '../errors'
import type { ChatMessage, ChatRequest, Deadline, ToolCallSpec } from '../llm'
import { requestLog } from '../log'
import { toolSession } from '../tools'
import type { RenderOptions } from '../render'
import type { Store } from '../store'
import type { ToolSession } from '../tools'
import type { ChatOptions } from './options'
import { Budget, argumentChars, textOf, turnChars } from './budget'
import { checkAnswer, responseFormat, retryRequest } from './returns'
import type { Checked } from './returns'
import { parseTagsInTurns } from './tags'
import { runCalls } from './offered-tools'
import type { Offered, StepCall } from './offered-tools'

/** What a chat is asked to do, checked: the conversation so far, what it offers the model, and its bounds. */
export interface ChatPlan {
  promptId: string
  model: string
  /** The caller's OpenAI parameters (`temperature`, `tool_choice`, `response_format`, ...). */
  parameters: Record<string, unknown>
  /** The rendered prompt's messages, then the caller's. */
  messages: ChatMessage[]
  offered: Offered
  /** The prompt's `returns`, when it is a JSON Schema. */
  returns: JsonSchema | undefined
  /** The tags the answer is parsed into, when the prompt's `returns` is in the tags format. */
  tags: string[] | undefined
  /** Tool rounds at most (`max_steps`). */
  maxSteps: number
}

/** One tool round, as the answer's `steps` list it. */
export interface Step {
  step: number
  calls: StepCall[]
  /** The provider's usage for the request that asked for the calls, when it said. */
  usage?: unknown
}

/** What follows a model's answer: ask again (after a tool round, or to fix the answer), or answer the caller. */
export type Next =
  | { kind: 'again'; step: Step | undefined }
  | {
      kind: 'done'
      /** The answer checked against `returns`, when the prompt has one and the answer is text. */
      checked?: Checked
      /** Why the loop ended with tool calls unanswered: no rounds, time, or room in the conversation left. */
      stopped?: 'max_steps' | 'deadline' | 'max_bytes'
      /** The answers of the service's calls, when the model also called the caller's tools. */
      toolMessages?: ChatMessage[]
    }

/**
 * The state of one chat: the messages so far, the tool rounds made, and
 * the deadline (CHAT_TIMEOUT_MS) every provider request and tool call runs
 * under. Both the plain and the streamed loop drive it: they ask it for the
 * next request, hand it each answer, and do what it says next.
 */
export class Conversation {
  readonly steps: Step[] = []
  readonly #deadline = new AbortController()
  readonly #timer: ReturnType<typeof setTimeout>
  /** `Date.now()` when the deadline fires. */
  readonly #endsAt: number
  /** What the conversation may still take (LLM_MAX_BYTES, in characters, less the messages it started with). */
  readonly #budget: Budget
  #retries = 0
  #session: ToolSession | undefined

  constructor(
    readonly plan: ChatPlan,
    readonly store: Store,
    readonly renderOptions: RenderOptions,
    readonly options: ChatOptions,
    budget: number,
  ) {
    this.#budget = new Budget(budget, plan.messages)
    const reason = new ServiceError(
      'CHAT_TIMEOUT',
      `the chat did not finish within CHAT_TIMEOUT_MS (${options.deadlineMs} ms)`,
    )
    this.#endsAt = Date.now() + options.deadlineMs
    this.#timer = setTimeout(() => this.#deadline.abort(reason), options.deadlineMs)
  }

  /** The chat's deadline. */
  get signal(): AbortSignal {
    return this.#deadline.signal
  }

  /** The chat's deadline and when it fires, for a provider request (a wait it asks for must fit before it). */
  get deadline(): Deadline {
    return { signal: this.#deadline.signal, at: this.#endsAt }
  }

  /** Whether the answer says more than the provider's: the service's tool rounds, or the parsed answer. */
  get extended(): boolean {
    return this.plan.offered.ours.size > 0 || this.plan.returns !== undefined || this.plan.tags !== undefined
  }

  /**
   * The next request. A forced `tool_choice` (`required`, or one function)
   * holds for the first request only: forcing it again would have the model
   * call tools until max_steps. Without tools, neither `tool_choice` nor
   * `parallel_tool_calls` is sent: providers refuse them alone.
   */
  request(): ChatRequest {
    const { model, parameters, messages, offered, returns, promptId } = this.plan
    const { tool_choice: choice, parallel_tool_calls: parallel, response_format: format, ...rest } = parameters
    const request: ChatRequest = { ...rest, model, messages }
    if (offered.definitions.length > 0) {
      request.tools = offered.definitions
      if (choice !== undefined) request.tool_choice = this.steps.length > 0 && choice !== 'none' ? 'auto' : choice
      if (parallel !== undefined) request.parallel_tool_calls = parallel
    }
    if (format !== undefined) request.response_format = format
    else if (returns) request.response_format = responseFormat(returns, promptId)
    return request
  }

  /**
   * Takes the model's answer. Calls of the service's tools are made (a tool
   * round) and the model asked again, while rounds, time and room in the
   * conversation (the budget: the turn, its calls' arguments, their answers)
   * are left; calls of the caller's tools end the loop, as do answers
   * without calls. Room is decided before any call is made (or its
   * arguments parsed), from lengths alone: a round whose turn, re-sent with
   * the least of its answers, would not fit, or one of whose calls'
   * arguments are past CHAT_ARGUMENTS_MAX_BYTES, is not made
   * (`stopped: max_bytes`). An answer checked against `returns` that fails
   * is sent back with its problems when `canRetry` (nothing of it has
   * reached the caller), up to LLM_OUTPUT_RETRIES times and while the
   * budget takes it; then it is LLM_INVALID_OUTPUT.
   */
  async next(message: ChatMessage, usage: unknown, canRetry: boolean): Promise<Next> {
    const { offered, returns } = this.plan
    const calls = message.tool_calls ?? []
    if (calls.length > 0) {
      const ours = calls.filter((c) => !offered.callers.has(c.function.name))
      if (offered.ours.size === 0 || ours.length === 0) return { kind: 'done' }
      if (this.steps.length >= this.plan.maxSteps) return { kind: 'done', stopped: 'max_steps' }
      if (this.signal.aborted) return { kind: 'done', stopped: 'deadline' }
      // Calls of the caller's tools too: the answers go back to the caller, and nothing is re-sent.
      const resent = ours.length === calls.length
      const turn = assistantTurn(message)
      if (this.#pastArguments(ours) || (resent && !this.#budget.take(turnChars(turn)))) {
        return { kind: 'done', stopped: 'max_bytes' }
      }
      const { step, answers } = await this.#round(ours, usage)
      if (!resent) return { kind: 'done', toolMessages: answers }
      this.plan.messages.push(turn, ...answers)
      return this.signal.aborted ? { kind: 'done', stopped: 'deadline' } : { kind: 'again', step }
    }
    if (this.plan.tags) {
      const { parsed, warnings } = await parseTagsInTurns(textOf(message.content), this.plan.tags)
      return { kind: 'done', checked: { ok: true, value: parsed, warnings } }
    }
    if (!returns) return { kind: 'done' }
    const checked = checkAnswer(returns, message.content)
    if (checked.ok || !canRetry) return { kind: 'done', checked }
    const turn = assistantTurn(message)
    const ask: ChatMessage = { role: 'user', content: retryRequest(checked.errors) }
    const why =
      this.#retries >= this.options.outputRetries
        ? `after ${this.#retries + 1} tries`
        : !this.#budget.take(turnChars(turn) + textOf(ask.content).length)
          ? `and asking again would pass LLM_MAX_BYTES (${this.#budget.total} characters of conversation)`
          : undefined
    if (why) {
      throw new ServiceError(
        'LLM_INVALID_OUTPUT',
        `the answer does not match the prompt's returns schema ${why}: ${checked.errors.join('; ')}`,
        { extra: { errors: checked.errors } },
      )
    }
    this.#retries++
    requestLog()?.count('chat', 'output_retries')
    this.plan.messages.push(turn, ask)
    return { kind: 'again', step: undefined }
  }

  /** The fields the answer adds to the provider's completion. */
  answerFields(next: Next & { kind: 'done' }): Record<string, unknown> {
    return {
      ...(this.plan.offered.ours.size > 0 ? { steps: this.steps } : {}),
      ...(next.stopped ? { stopped: next.stopped } : {}),
      ...(next.toolMessages ? { tool_messages: next.toolMessages } : {}),
    }
  }

  /** The busy time of the tool calls, for Server-Timing. */
  get toolsMs(): number {
    return this.#session?.busyMs ?? 0
  }

  /** Ends the chat: its deadline's timer, and any tool call or connection still open. */
  async close(): Promise<void> {
    clearTimeout(this.#timer)
    if (this.plan.offered.ours.size > 0) requestLog()?.set('steps', this.steps.length)
    await this.#session?.close().catch(() => undefined)
  }

  /**
   * Whether a call's arguments are past CHAT_ARGUMENTS_MAX_BYTES. Such
   * a call ends the loop rather than being answered as failed: its turn
   * would have to be re-sent whole, megabytes in every later request, to
   * tell the model so, and a model that wrote them once writes them again.
   */
  #pastArguments(calls: readonly ToolCallSpec[]): boolean {
    const past = calls.find((call) => argumentChars(call) > this.options.maxArgumentChars)
    if (past) requestLog()?.set('tool_arguments_chars', argumentChars(past))
    return past !== undefined
  }

  /** Makes one round of the service's calls, and records it as a step. */
  async #round(calls: ToolCallSpec[], usage: unknown): Promise<{ step: Step; answers: ChatMessage[] }> {
    const { ours } = this.plan.offered
    this.#session ??= await toolSession(this.store, [...ours.values()], this.renderOptions, this.signal)
    const round = await runCalls(this.#session, calls, ours, this.#budget)
    const step: Step = { step: this.steps.length + 1, calls: round.calls, ...(usage ? { usage } : {}) }
    this.steps.push(step)
    return { step, answers: round.answers }
  }
}

/** The model's turn as the next request repeats it: what OpenAI takes back of an assistant message. */
function assistantTurn(message: ChatMessage): ChatMessage {
  const { content = null, tool_calls: calls, name } = message
  return {
    role: 'assistant',
    content,
    ...(name === undefined ? {} : { name }),
    ...(calls?.length ? { tool_calls: calls } : {}),
  }
}
