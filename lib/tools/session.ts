import { abortable } from '../abort'
import type { Tool } from '../catalog'
import { TooLargeError, checkTarget } from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../json'
import { describeError, requestLog } from '../log'
import { EMPTY } from '../template'
import type { Meter, TemplateFunction, Value } from '../template'
import { ArgumentError, SeenMaps, ToolError, paramsChecker } from './arguments'
import type { Given, Params } from './arguments'
import { McpClients } from './mcp-client'
import { callRest, resolve, restRequest } from './rest'

/** Outgoing connections a Worker request may hold at once; more would only queue inside the runtime. */
const MAX_CONCURRENT = 6

/** TOOL_MAX_CALLS by default: distinct calls one render may make. */
export const DEFAULT_TOOL_MAX_CALLS = 64
/** TOOL_MAX_BYTES by default: 1 MiB of one tool's answer. */
export const DEFAULT_TOOL_MAX_BYTES = 1024 * 1024

export interface ToolSessionOptions {
  /** TOOLS_BASE_URL: the base of relative tool URLs. */
  baseUrl: string | undefined
  /** The base_url of the shared variable modules.{module}, which wins over baseUrl. */
  moduleBaseUrl: (module: string) => string | undefined
  /** TOOL_ALLOWED_HOSTS: when set, the only hosts (hostname or host:port) tools may reach, redirects included. */
  allowedHosts: readonly string[] | undefined
  /** TOOL_TIMEOUT_MS: one call's bound, from when its request is sent. */
  timeoutMs: number
  /** TOOL_MAX_CALLS: distinct calls at most; later ones are refused without a request. */
  maxCalls?: number
  /** TOOL_MAX_BYTES: the bytes of one answer at most. */
  maxBytes?: number
  /** A tighter bound on this session's answers, when the room they go into is smaller (an MCP answer's). */
  room?: ByteLimit
  /** Answers wanted only as text (MCP's tools/call): a REST tool's JSON is kept as sent, not parsed. */
  asText?: boolean
  /** The render's deadline: bounds queueing, and aborts every call still running. */
  signal: AbortSignal
  /** The request's ExecutionContext.waitUntil: keeps what a call leaves to do (an MCP cancellation) past the answer. */
  waitUntil?: ((p: Promise<unknown>) => void) | undefined
}

/** One call as the render saw it: when it started (epoch ms), how long it took, how it ended. */
export interface ToolCall {
  tool: string
  started: number
  ms: number
  outcome: 'ok' | 'failed'
}

/** How a call ended: the tool's answer, or why it failed (the reason a TOOL_FAILED warning gives). */
export type Outcome = { ok: true; value: Value } | { ok: false; reason: string; limit?: string }

export type ToolWarning =
  | { code: 'TOOL_FAILED'; tool: string; message: string }
  | { code: 'TOOL_CALLS_REFUSED'; refused: number; message: string }

/**
 * The tool calls of one render. Calls run concurrently, at most six at once
 * (the rest queue); a call identical to an earlier one (same tool, same
 * parameters) is that call. A call that fails in any way (invalid arguments,
 * a host or redirect not allowed, the network, a non-2xx answer, a timeout,
 * an answer too big or that does not parse) becomes a warning and returns
 * EMPTY: the render goes on. Past maxCalls distinct calls, the rest are
 * refused without a request, and one warning counts them. Every call and
 * its outcome goes into the request's log line, and into `calls` (a render
 * asked to explain itself answers with them).
 */
export class ToolSession {
  /** Time during which at least one call was in flight, for Server-Timing's `tools`. */
  #busyMs = 0
  /** The distinct calls made, at most maxCalls, in the order they ended (a repeated call is the first one). */
  readonly calls: ToolCall[] = []

  readonly #warnings: ToolWarning[] = []
  /** Calls by tool id, then by their parameters' key. */
  readonly #calls = new Map<string, Map<string, Promise<Outcome> | Outcome>>()
  readonly #seen = new SeenMaps()
  readonly #queue: (() => void)[] = []
  readonly #mcp: McpClients
  /** Aborted when the render ends (close). */
  readonly #ended = new AbortController()
  /** The deadline or the render's end, whichever comes first: nothing the session started outlives either. */
  readonly #signal: AbortSignal
  readonly #policy: EgressPolicy
  readonly #limit: ByteLimit
  readonly #maxCalls: number
  #made = 0
  #refused = 0
  #slots = MAX_CONCURRENT
  #inFlight = 0
  #busySince = 0

  constructor(readonly options: ToolSessionOptions) {
    this.#signal = AbortSignal.any([options.signal, this.#ended.signal])
    this.#policy = { allowedHosts: options.allowedHosts }
    const maxBytes = options.maxBytes ?? DEFAULT_TOOL_MAX_BYTES
    this.#limit =
      options.room && options.room.bytes < maxBytes ? options.room : { bytes: maxBytes, name: 'TOOL_MAX_BYTES' }
    this.#maxCalls = options.maxCalls ?? DEFAULT_TOOL_MAX_CALLS
    const cancelling = { timeoutMs: options.timeoutMs, waitUntil: options.waitUntil }
    this.#mcp = new McpClients(this.#signal, this.#policy, this.#limit, cancelling)
  }

  /** What degraded the render: one warning per failed call, and one for all the calls refused past the cap. */
  get warnings(): ToolWarning[] {
    if (this.#refused === 0) return [...this.#warnings]
    const refused: ToolWarning = {
      code: 'TOOL_CALLS_REFUSED',
      refused: this.#refused,
      message: `${this.#refused} more tool call${this.#refused === 1 ? ' was' : 's were'} refused: ${this.#refusal()}`,
    }
    return [...this.#warnings, refused]
  }

  #refusal(): string {
    return `a render makes at most ${this.#maxCalls} (TOOL_MAX_CALLS)`
  }

  /**
   * The template function of a tool: a failed call prints as nothing
   * (EMPTY), its reason a warning. Making the call of the operands is
   * counted in the calling template's step budget (arguments.ts).
   */
  functionFor(tool: Tool): TemplateFunction {
    const checker = paramsChecker(tool)
    const session = this
    return function (this: Meter, ...args) {
      const started = Date.now()
      let given: Given
      try {
        given = checker.given(args, this, session.#seen)
      } catch (e) {
        // The budget's end ends the render; only the call's own fault is the call's failure.
        if (!(e instanceof ArgumentError)) throw e
        return session.#counted(tool) ? valueOf(session.#fail(tool, e, started)) : EMPTY
      }
      const outcome = session.#outcome(tool, given, started)
      return outcome instanceof Promise ? outcome.then(valueOf) : valueOf(outcome)
    }
  }

  /**
   * One call with named arguments (a model's tool call, MCP's tools/call),
   * made and bounded as a template's is, its outcome said rather than
   * printed: the answer, or the reason it failed.
   */
  invoke(tool: Tool, params: Params): Promise<Outcome> | Outcome {
    return this.#outcome(tool, paramsChecker(tool).named(params), Date.now())
  }

  /**
   * The outcome of a call: a repeated call is the first one; a new one
   * counts against the cap. Calls are found by tool, then by key: a call
   * repeated with the same map has the same key string, whose hash the
   * engine keeps, so finding it again reads none of it.
   */
  #outcome(tool: Tool, given: Given, started: number): Promise<Outcome> | Outcome {
    let calls = this.#calls.get(tool.id)
    if (calls === undefined) this.#calls.set(tool.id, (calls = new Map()))
    let call = calls.get(given.key)
    if (call === undefined) {
      if (!this.#counted(tool)) return { ok: false, reason: `refused: ${this.#refusal()}` }
      try {
        call = this.#call(tool, paramsChecker(tool).check(given.params), started)
      } catch (e) {
        call = this.#fail(tool, e, started)
      }
      calls.set(given.key, call)
    }
    return call
  }

  /**
   * Ends the session: calls still running or queued are abandoned, and
   * every request they made (MCP handshakes included) is aborted.
   */
  async close(): Promise<void> {
    this.#ended.abort(new DOMException('the render ended', 'AbortError'))
  }

  /** Counts a new call: true while under the cap; past it, the call is refused. */
  #counted(tool: Tool): boolean {
    if (this.#made < this.#maxCalls) {
      this.#made++
      return true
    }
    this.#refused++
    // Not in `calls`: a template can refuse itself without end; TOOL_CALLS_REFUSED counts them.
    requestLog()?.append('tools', { tool: tool.id, outcome: 'refused' })
    return false
  }

  async #call(tool: Tool, params: Params, started: number): Promise<Outcome> {
    try {
      const send = this.#sender(tool, params)
      const queued = this.#acquire()
      // Only a queued call waits; its wait is bounded by the render's deadline.
      if (queued) await abortable(queued, this.#signal)
      this.#busy(+1)
      try {
        // The tool's own timeout starts now, when its request is sent.
        const signal = AbortSignal.any([this.#signal, AbortSignal.timeout(this.options.timeoutMs)])
        const value = (await send(signal)) as Value
        // Printed, a value deeper than any request or record may be would fail the whole render: fail the call.
        if (nestedDeeperThan(value)) throw new ToolError(`answered JSON nested deeper than ${MAX_JSON_DEPTH} levels`)
        this.#record(tool, 'ok', started)
        return { ok: true, value }
      } finally {
        this.#busy(-1)
        this.#release()
      }
    } catch (e) {
      return this.#fail(tool, e, started)
    }
  }

  /** What sends the call, once the target is known and allowed; a refusal makes no request. */
  #sender(tool: Tool, params: Params): (signal: AbortSignal) => Promise<unknown> {
    const { record } = tool
    const base = this.options.moduleBaseUrl(record.module) ?? this.options.baseUrl
    switch (record.type) {
      case 'restful': {
        const request = restRequest(record.restful, params, base, paramsChecker(tool).declared)
        checkTarget(request.url, this.#policy)
        return (signal) => callRest(request, this.#policy, this.#limit, signal, this.options.asText !== true)
      }
      case 'mcp': {
        const url = resolve(record.mcp.url, base)
        checkTarget(url, this.#policy)
        const name = record.mcp.tool ?? record.name
        return (signal) => this.#mcp.call(url, name, params, signal)
      }
      case 'grpc': {
        const url = resolve(record.grpc.url, base)
        checkTarget(url, this.#policy)
        const { timeoutMs } = this.options
        // Loaded with the first grpc call, not with the Worker (grpc.ts says why).
        return async (signal) =>
          (await import('./grpc')).callGrpc(record, params, url, this.#policy, this.#limit, signal, timeoutMs)
      }
    }
  }

  /** The log gets the reason; the caller's warning also a short reason the tool gave, if any, and the limit passed. */
  #fail(tool: Tool, e: unknown, started: number): Outcome {
    const reason = reasonOf(e, this.options.timeoutMs)
    this.#record(tool, 'failed', started, reason)
    const excerpt = e instanceof ToolError && e.excerpt ? `: ${e.excerpt}` : ''
    this.#warnings.push({ code: 'TOOL_FAILED', tool: tool.id, message: reason + excerpt })
    return { ok: false, reason: reason + excerpt, ...(e instanceof TooLargeError ? { limit: e.limit.name } : {}) }
  }

  #record(tool: Tool, outcome: ToolCall['outcome'], started: number, reason?: string): void {
    const ms = Date.now() - started
    this.calls.push({ tool: tool.id, started, ms, outcome })
    requestLog()?.append('tools', { tool: tool.id, outcome, ...(reason === undefined ? {} : { reason }), ms })
  }

  /** Takes a slot now (undefined), or a promise of one when all six are taken. */
  #acquire(): Promise<void> | undefined {
    if (this.#slots > 0) {
      this.#slots--
      return undefined
    }
    return new Promise((resolve) => this.#queue.push(resolve))
  }

  #release(): void {
    const next = this.#queue.shift()
    if (next) next()
    else this.#slots++
  }

  #busy(delta: 1 | -1): void {
    if (delta === 1 && this.#inFlight++ === 0) this.#busySince = Date.now()
    if (delta === -1 && --this.#inFlight === 0) this.#busyMs += Date.now() - this.#busySince
  }

  /** Milliseconds during which a call was in flight, the calls still in flight counted to now (a render stopped at its deadline). */
  get busyMs(): number {
    return this.#busyMs + (this.#inFlight > 0 ? Date.now() - this.#busySince : 0)
  }
}

function valueOf(outcome: Outcome): Value {
  return outcome.ok ? outcome.value : EMPTY
}

function reasonOf(e: unknown, timeoutMs: number): string {
  if (e instanceof ArgumentError) return e.message
  if (e instanceof DOMException && e.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`
  if (e instanceof DOMException && e.name === 'AbortError') return `aborted: ${e.message}`
  return describeError(e)
}
