import { abortable } from '../abort'
import { MAX_ENVIRON_SEGMENTS, getPrompt, listTools } from '../catalog'
import type { Message, Tool } from '../catalog'
import { ServiceError } from '../errors'
import { MAX_JSON_DEPTH, isObject, ownValue, setOwn } from '../json'
import type { JsonObject } from '../json'
import type { Store } from '../store'
import { ExecError, LimitError } from '../template'
import type { ExecuteOptions, Template, TemplateFunction } from '../template'
import { ToolSession, dict } from '../tools'
import type { ToolSessionOptions } from '../tools'
import type { Args } from './args'
import { compile } from './compile'
import { loadVariables, missingPath, missingVariable } from './context'
import { Timing } from './timing'

/**
 * Steps of execution a render may take per millisecond of its deadline: about
 * twice what this engine walks in that time, so it ends a runaway template
 * even where the clock stands still during CPU work (deployed Workers).
 */
const STEPS_PER_MS = 5000

/**
 * How deep the data a template prints may nest: whatever a request or a
 * record can hold prints (a value MAX_JSON_DEPTH deep, under as many map
 * levels as an environ key has segments, under the root), while a value the
 * template itself nests deeper (dict in a loop) is refused before it blows
 * the stack.
 */
const MAX_DATA_DEPTH = MAX_JSON_DEPTH + MAX_ENVIRON_SEGMENTS + 1

export interface RenderOptions {
  /** The whole render's deadline (RENDER_TIMEOUT_MS). */
  deadlineMs: number
  /** How tool calls are made (the session's signal is the render's deadline). */
  tools: Omit<ToolSessionOptions, 'signal' | 'moduleBaseUrl'>
}

/** Something that degraded the render without failing it. */
export interface Warning {
  code: string
  message: string
  [field: string]: unknown
}

export interface Rendered {
  /** A string for a `prompt`; the messages with their content rendered for `messages`. */
  prompt: string | Message[]
  warnings: Warning[]
  timing: Timing
}

/**
 * Renders a prompt: find it, parse it (once), check and complete its args,
 * read the shared variables its templates read, then execute under the
 * deadline with missingkey=error. Every failure leaves as a ServiceError
 * carrying the service's code.
 */
export async function renderPrompt(store: Store, id: string, given: Args, options: RenderOptions): Promise<Rendered> {
  const timing = new Timing()
  const deadline = AbortSignal.timeout(options.deadlineMs)
  const deadlineAt = Date.now() + options.deadlineMs
  let session: ToolSession | undefined
  try {
    const [prompt, tools] = await timing.measure('redis', () =>
      abortable(Promise.all([getPrompt(store, id), listTools(store)]), deadline),
    )
    const toolsById = new Map(tools.items.map((t) => [t.id, t]))
    const compiled = timing.measureSync('render', () => compile(prompt, [...toolsById.keys(), 'dict']))
    const args = compiled.checkArgs(given)
    const called = compiled.analysis.functions.flatMap((name) => toolsById.get(name) ?? [])
    const paths = compiled.analysis.paths
    // A tool's module may name its base URL in the shared variable modules.{module}.base_url.
    const basePaths = [...new Set(called.map((t) => t.record.module))].map((m) => ['modules', m, 'base_url'])
    const { vars, skipped } = await timing.measure('redis', () =>
      abortable(loadVariables(store, [...paths, ...basePaths]), deadline),
    )
    // Args are data: they enter the context as values, never as template text.
    const data = vars
    setOwn(data, 'args', args)
    // Only what every execution reads must exist now; a read in a branch is judged when it runs.
    const missing = missingPath(data, compiled.analysis.required)
    if (missing !== undefined) throw missingVariable(missing)

    // A session holds signals and connections: a render that calls no tool needs none of them.
    if (called.length > 0) {
      session = new ToolSession({ ...options.tools, signal: deadline, moduleBaseUrl: (m) => baseUrlOf(vars, m) })
    }
    const funcs = functionsFor(session, called)
    const executeOptions: ExecuteOptions = {
      funcs,
      missingKey: 'error',
      signal: deadline,
      deadline: deadlineAt,
      maxSteps: options.deadlineMs * STEPS_PER_MS,
      maxDataDepth: MAX_DATA_DEPTH,
    }
    const rendering = timing.measureSync('render', () => renderAll(compiled.templates, data, executeOptions))
    const outputs = rendering.every((o) => typeof o === 'string')
      ? rendering
      : await timing.measure('render', () => Promise.all(rendering))
    timing.add('tools', session?.busyMs ?? 0)
    const warnings: Warning[] = [
      ...skipped.map((s) => ({ code: 'RECORD_SKIPPED', message: `${s.key} ${s.reason}`, ...s })),
      ...(session?.warnings ?? []),
    ]
    const roles = compiled.roles
    const rendered = roles
      ? outputs.map((content, i) => ({ role: roles[i] as Message['role'], content }))
      : (outputs[0] as string)
    return { prompt: rendered, warnings, timing }
  } catch (e) {
    throw asServiceError(e, deadline, options.deadlineMs)
  } finally {
    // MCP connections end with the render; closing them is no reason to fail it.
    await session?.close().catch(() => undefined)
  }
}

/**
 * Renders each template: as text when its functions all answered at once
 * (no Promise made), as a Promise when one waits on a tool. When one fails
 * at once, the renders already waiting are let go, their failures handled.
 */
function renderAll(
  templates: readonly Template[],
  data: unknown,
  options: ExecuteOptions,
): (string | Promise<string>)[] {
  const outputs: (string | Promise<string>)[] = []
  try {
    for (const t of templates) outputs.push(t.render(data, options))
  } catch (e) {
    for (const o of outputs) if (typeof o !== 'string') o.catch(() => undefined)
    throw e
  }
  return outputs
}

/** The functions a template may call: the tools it calls, and dict. */
function functionsFor(session: ToolSession | undefined, tools: readonly Tool[]): Map<string, TemplateFunction> {
  const funcs = new Map<string, TemplateFunction>([['dict', dict]])
  if (session) for (const tool of tools) funcs.set(tool.id, session.functionFor(tool))
  return funcs
}

function baseUrlOf(vars: JsonObject, module: string): string | undefined {
  const modules = ownValue(vars, 'modules')
  const entry = isObject(modules) ? ownValue(modules, module) : undefined
  const base = isObject(entry) ? ownValue(entry, 'base_url') : undefined
  return typeof base === 'string' ? base : undefined
}

function asServiceError(e: unknown, deadline: AbortSignal, deadlineMs: number): unknown {
  const overdue = deadline.aborted || (e instanceof DOMException && e.name === 'TimeoutError')
  if (overdue && !(e instanceof ServiceError)) {
    return new ServiceError('RENDER_TIMEOUT', `rendering did not finish within ${deadlineMs} ms`, { cause: e })
  }
  if (e instanceof LimitError) {
    return new ServiceError('LIMIT_EXCEEDED', e.message, {
      extra: { limit: e.limit, template: e.templateName, line: e.line, column: e.column },
    })
  }
  if (e instanceof ExecError) {
    const key = /^(?:map has no entry for key|nil data; no entry for key) "(.*)"$/.exec(e.detail)
    if (key)
      return new ServiceError('MISSING_VARIABLE', e.message, {
        extra: { variable: key[1], line: e.line, column: e.column },
      })
    // The template's error text can quote values, args among them.
    return new ServiceError('RENDER_FAILED', e.message, {
      extra: { template: e.templateName, line: e.line, column: e.column },
      sensitive: true,
    })
  }
  return e
}
