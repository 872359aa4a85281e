import { abortable } from '../abort'
import type { Tool } from '../catalog'
import { requestLog } from '../log'
import { EMPTY } from '../template'
import type { TemplateFunction, Value } from '../template'
import { ArgumentError, ToolError, paramsChecker } from './arguments'
import type { Params } from './arguments'
import { McpClients } from './mcp'
import { callRest, resolve, restRequest } from './rest'

/** Outgoing connections a Worker request may hold at once; more would only queue inside the runtime. */
const MAX_CONCURRENT = 6

export interface ToolSessionOptions {
  /** TOOLS_BASE_URL: the base of relative tool URLs. */
  baseUrl: string | undefined
  /** The base_url of the shared variable modules.{module}, which wins over baseUrl. */
  moduleBaseUrl: (module: string) => string | undefined
  /** TOOL_ALLOWED_HOSTS: when set, the only hosts (hostname or host:port) tools may reach. */
  allowedHosts: readonly string[] | undefined
  /** TOOL_TIMEOUT_MS: one call's bound, from when its request is sent. */
  timeoutMs: number
  /** The render's deadline: bounds queueing, and aborts every call still running. */
  signal: AbortSignal
}

export type ToolWarning = {
  code: 'TOOL_FAILED'
  tool: string
  message: string
}

/**
 * The tool calls of one render. Calls run concurrently, at most six at once
 * (the rest queue); a call identical to an earlier one (same tool, same
 * parameters) is that call. A call that fails in any way (invalid arguments,
 * a host not allowed, the network, a non-2xx answer, a timeout, an answer
 * that does not parse) becomes a warning and returns EMPTY: the render goes
 * on. Every call and its outcome goes into the request's log line.
 */
export class ToolSession {
  readonly warnings: ToolWarning[] = []
  /** Time during which at least one call was in flight, for Server-Timing's `tools`. */
  busyMs = 0

  readonly #calls = new Map<string, Promise<Value>>()
  readonly #queue: (() => void)[] = []
  readonly #mcp: McpClients
  #slots = MAX_CONCURRENT
  #inFlight = 0
  #busySince = 0

  constructor(readonly options: ToolSessionOptions) {
    this.#mcp = new McpClients(options.signal)
  }

  /** The template function of a tool. */
  functionFor(tool: Tool): TemplateFunction {
    const check = paramsChecker(tool)
    return (...args) => {
      const started = Date.now()
      let params: Params
      try {
        params = check(args)
      } catch (e) {
        return this.#fail(tool, e, started)
      }
      const key = `${tool.id}\u0000${JSON.stringify(params)}`
      let call = this.#calls.get(key)
      if (!call) {
        call = this.#call(tool, params, started)
        this.#calls.set(key, call)
      }
      return call
    }
  }

  async close(): Promise<void> {
    await this.#mcp.close()
  }

  async #call(tool: Tool, params: Params, started: number): Promise<Value> {
    try {
      const send = this.#sender(tool, params)
      const queued = this.#acquire()
      // Only a queued call waits; its wait is bounded by the render's deadline.
      if (queued) await abortable(queued, this.options.signal)
      this.#busy(+1)
      try {
        // The tool's own timeout starts now, when its request is sent.
        const signal = AbortSignal.any([this.options.signal, AbortSignal.timeout(this.options.timeoutMs)])
        const value = (await send(signal)) as Value
        requestLog()?.append('tools', { tool: tool.id, outcome: 'ok', ms: Date.now() - started })
        return value
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
    if (record.type === 'restful') {
      const request = restRequest(tool, params, base)
      this.#checkHost(request.url)
      return (signal) => callRest(request, signal)
    }
    if (record.type === 'mcp' && record.mcp) {
      const url = resolve(record.mcp.url, base)
      this.#checkHost(url)
      const name = record.mcp.tool ?? record.name
      return (signal) => this.#mcp.call(url, name, params, signal)
    }
    throw new Error(`tools of type ${record.type} are not supported yet`)
  }

  #checkHost(url: URL): void {
    const allowed = this.options.allowedHosts
    if (allowed && !allowed.includes(url.host) && !allowed.includes(url.hostname)) {
      throw new Error(`its host ${url.host} is not in TOOL_ALLOWED_HOSTS`)
    }
  }

  #fail(tool: Tool, e: unknown, started: number): Value {
    const reason = reasonOf(e, this.options.timeoutMs)
    const ms = Date.now() - started
    requestLog()?.append('tools', { tool: tool.id, outcome: 'failed', reason, ms })
    const excerpt = e instanceof ToolError && e.excerpt ? `: ${e.excerpt}` : ''
    this.warnings.push({ code: 'TOOL_FAILED', tool: tool.id, message: reason + excerpt })
    return EMPTY
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
    if (delta === -1 && --this.#inFlight === 0) this.busyMs += Date.now() - this.#busySince
  }
}

function reasonOf(e: unknown, timeoutMs: number): string {
  if (e instanceof ArgumentError) return e.message
  if (e instanceof DOMException && e.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`
  if (e instanceof DOMException && e.name === 'AbortError') return 'aborted: the render passed its deadline'
  return e instanceof Error ? e.message : String(e)
}
