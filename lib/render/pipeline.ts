import { abortable } from '../abort'
import {
  MAX_ENVIRON_SEGMENTS,
  basePaths,
  baseUrlOf,
  findTools,
  getServedPrompt,
  loadVariables,
  missingPath,
  missingVariable,
  promptAt,
} from '../catalog'
import type { Message, Prompt, PromptRecord, Served, Tool } from '../catalog'
import { ServiceError } from '../errors'
import { log, requestLog } from '../log'
import { MAX_JSON_DEPTH, isObject, setOwn } from '../json'
import type { JsonObject } from '../json'
import { isGenerational, staleOf } from '../store'
import type { Store } from '../store'
import { choose, decodeRollout } from '../rollout'
import { ExecError, LimitError } from '../template'
import type { ExecuteOptions, Template, TemplateFunction, Value } from '../template'
import { ToolSession, dict } from '../tools'
import type { Args } from './args'
import { compile, functionNames } from './compile'
import type { CompiledPrompt } from './compile'
import { NoValues } from './no-value'
import { STEPS_PER_MS, renderTimeout, stoppedEarly } from './stopped'
import type { Spent } from './stopped'
import { ageOf, analysisReport, withAnalysis } from './explain'
import { Timing } from './timing'
import { keepPlan, keptPlan } from './plans'
import type { Plan } from './plans'
import type { Rendered, RenderOptions, Warning } from './types'

/**
 * How long, in steps, a render walks before letting the isolate's other
 * requests run (ExecuteOptions.turnSteps): a render is one request of many,
 * and a costly one may cost only itself.
 */
const TURN_STEPS = 5 * STEPS_PER_MS

/**
 * How deep the data a template prints may nest: whatever a request or a
 * record can hold prints (a value MAX_JSON_DEPTH deep, under as many map
 * levels as an environ key has segments, under the root), while a value the
 * template itself nests deeper (dict in a loop) is refused before it blows
 * the stack.
 */
const MAX_DATA_DEPTH = MAX_JSON_DEPTH + MAX_ENVIRON_SEGMENTS + 1

/** The prompt to render, as read (with the version served) or as a draft gave it. */
type Found = { prompt: Prompt; served: Served | undefined; rollout?: string | null }

/**
 * Makes a render's plan, reading what it must under the render's deadline,
 * and checks the args on the way, with the check `watched` gives it.
 */
type Planner = (
  signal: () => AbortSignal,
  timing: Timing,
  watched: (check: ArgsCheck) => ArgsCheck,
) => Promise<{ plan: Plan; args: Args }>

/** A prompt compiled, and the tools its templates call: what its args are checked on. */
interface Compiled {
  compiled: CompiledPrompt
  called: readonly Tool[]
}

/** The args a render takes, checked against the compiled prompt's parameters (or none, when only reading). */
type ArgsCheck = (found: Compiled) => Args

/**
 * Renders a prompt: find it, parse it (once), check and complete its args,
 * read the shared variables its templates read, then execute under the
 * deadline with missingkey=error. What it derives from the records (its
 * plan) is kept while the store says they hold, so a render served from the
 * cache reads, parses and looks up nothing again. Every failure leaves as a
 * ServiceError carrying the service's code.
 */
export function renderPrompt(store: Store, id: string, given: Args, options: RenderOptions): Promise<Rendered> {
  // Should Redis fail, this prompt's snapshot may answer what no copy in the isolate holds.
  staleOf(store)?.reading(id)
  return render(store, options, async (signal, timing, watched) => {
    const planned = (version: number | undefined, args: ArgsCheck) =>
      planFor(store, id, version, args, options, signal, timing)
    const checked = watched(({ compiled }) => compiled.checkArgs(given))
    if (options.version !== undefined || options.rollout === undefined) return planned(options.version, checked)
    // The args are checked against the version served, which may not be the newest: after the choice.
    const newest = await planned(undefined, () => ({}))
    const rollout = newest.plan.rollout
    if (rollout === undefined) return { plan: newest.plan, args: checked(newest.plan) }
    const { header } = options.rollout
    const choice = choose(rollout, id, { header, args: given })
    requestLog()?.set('rollout', { versions: rollout.versions, chose: choice.version, why: choice.why })
    // The newest version is usually one of the rollout's: its plan serves, and no version is read.
    if (choice.version !== newest.plan.served?.version) return planned(choice.version, checked)
    return { plan: newest.plan, args: checked(newest.plan) }
  })
}

/**
 * The plan of prompt `id` at `version` (unset: as stored now, with its
 * rollout), kept while the store's answers it was built from hold.
 */
async function planFor(
  store: Store,
  id: string,
  version: number | undefined,
  checkArgs: ArgsCheck,
  options: RenderOptions,
  signal: () => AbortSignal,
  timing: Timing,
): Promise<{ plan: Plan; args: Args }> {
  const planId = `${id}\n${version ?? ''}`
  // A fixed tool changes what the plan is made of: such a render neither takes nor leaves one.
  const keeps = (options.overlay?.tools?.size ?? 0) === 0
  const kept = keeps ? keptPlan(store, planId) : undefined
  if (kept) return { plan: kept, args: checkArgs(kept) }
  // Taken before reading: a read that changes the store's cache makes the next render build again.
  const generation = isGenerational(store) ? store.generation : undefined
  const find = () => (version === undefined ? getServedPrompt(store, id) : promptAt(store, id, version))
  const made = await makePlan(store, find, checkArgs, options, signal, timing)
  if (keeps && generation !== undefined && isGenerational(store)) keepPlan(store, generation, planId, made.plan)
  return made
}

/**
 * Renders a prompt that is not stored (a draft: its record checked as a
 * stored one is, see draftPrompt) exactly as a stored one renders: the same
 * shared variables, tools, deadline and limits. Nothing is kept: a draft is
 * parsed for each request.
 */
export function renderDraft(store: Store, draft: Prompt, given: Args, options: RenderOptions): Promise<Rendered> {
  return render(store, options, (signal, timing, watched) => {
    const check = watched(({ compiled }) => compiled.checkArgs(given))
    return makePlan(store, async () => ({ prompt: draft, served: undefined }), check, options, signal, timing)
  })
}

/**
 * Makes the reads a render of the stored prompt `id` makes (its record, the
 * tools its templates call, the shared variables they and those tools
 * read), under the render's deadline, without args and without rendering:
 * what a snapshot of the prompt records (lib/render/snapshots.ts). Its
 * record, for the reads a chat adds.
 */
export async function readForRender(store: Store, id: string, options: RenderOptions): Promise<PromptRecord> {
  const deadline = AbortSignal.timeout(options.deadlineMs)
  const find = () => getServedPrompt(store, id)
  const noArgs: ArgsCheck = () => ({})
  const timing = new Timing()
  try {
    return (await makePlan(store, find, noArgs, options, () => deadline, timing)).plan.record
  } catch (e) {
    throw asServiceError(e, deadline, options.deadlineMs, { timing, toolsMs: 0, store })
  }
}

/**
 * Executes the plan `planner` makes from `store`, under the deadline, and
 * calls its tools; a plan made of last good copies (Redis failing) says so.
 */
async function render(store: Store, options: RenderOptions, planner: Planner): Promise<Rendered> {
  const timing = new Timing()
  const startedAt = Date.now()
  const deadlineAt = startedAt + options.deadlineMs
  // Made when something is to wait: a render served whole from a kept plan sets no timer.
  let deadline: AbortSignal | undefined
  const signal = () => (deadline ??= AbortSignal.timeout(Math.max(0, deadlineAt - Date.now())))
  let session: ToolSession | undefined
  // Known once the templates compiled: an explained failure says what they read and call.
  let compiledAs: Compiled | undefined
  const watched =
    (check: ArgsCheck): ArgsCheck =>
    (found) => {
      compiledAs = found
      return check(found)
    }
  try {
    const { plan, args } = await planner(signal, timing, watched)
    const { compiled, called, vars } = plan
    const overlaid = options.overlay?.variables
    const seenVars = overlaid ? mergedOver(vars, overlaid) : vars
    // Args are data: they enter the context as values, never as template text.
    const data: JsonObject = { ...seenVars }
    setOwn(data, 'args', args)
    // Only what every execution reads must exist now; a read in a branch is judged when it runs.
    const missing = missingPath(data, compiled.analysis.required)
    if (missing !== undefined) throw missingVariable(missing)

    // A session holds signals and connections: a render that calls no tool needs none of them.
    if (called.length > 0) {
      session = new ToolSession({ ...options.tools, signal: signal(), moduleBaseUrl: (m) => baseUrlOf(vars, m) })
    }
    const funcs = functionsFor(session, called, options.overlay?.tools)
    const noValues = new NoValues()
    const executeOptions: ExecuteOptions = {
      funcs,
      missingKey: 'error',
      signal: deadline,
      deadline: deadlineAt,
      maxSteps: options.deadlineMs * STEPS_PER_MS,
      turnSteps: TURN_STEPS,
      maxDataDepth: MAX_DATA_DEPTH,
      onNoValue: noValues.add,
    }
    const rendering = timing.measureSync('render', () => renderAll(compiled.templates, data, executeOptions))
    const outputs = rendering.every((o) => typeof o === 'string')
      ? rendering
      : await timing.measure('render', () => Promise.all(rendering))
    if (session) timing.addTools(session.busyMs, session.calls)
    const stale = staleOf(store)?.warning()
    const warnings: Warning[] = [
      ...plan.skipped.map((s) => ({ code: 'RECORD_SKIPPED', message: `${s.key} ${s.reason}`, ...s })),
      ...(session?.warnings ?? []),
      ...noValues.warnings,
      ...(stale ? [stale] : []),
    ]
    const roles = compiled.roles
    const rendered = roles
      ? outputs.map((content, i) => ({ role: roles[i] as Message['role'], content }))
      : (outputs[0] as string)
    return {
      prompt: rendered,
      warnings,
      timing,
      served: plan.served,
      analysis: compiled.analysis,
      tools: called.map((t) => t.id),
      record: plan.record,
      seen: { vars: seenVars, overlay: overlaid, ageMs: ageOf(store, plan.varsReadAt, startedAt) },
    }
  } catch (e) {
    const failure = asServiceError(e, deadline, options.deadlineMs, { timing, toolsMs: session?.busyMs ?? 0, store })
    if (!options.explain || compiledAs === undefined) throw failure
    const { compiled, called } = compiledAs
    throw withAnalysis(
      failure,
      analysisReport(
        compiled.analysis,
        called.map((t) => t.id),
      ),
    )
  } finally {
    // MCP connections end with the render; closing them is no reason to fail it.
    await session?.close().catch(() => undefined)
  }
}

/** Reads and derives a prompt's plan, and checks the args on the way (before reading the variables). */
async function makePlan(
  store: Store,
  find: () => Promise<Found>,
  checkArgs: ArgsCheck,
  options: RenderOptions,
  signal: () => AbortSignal,
  timing: Timing,
): Promise<{ plan: Plan; args: Args }> {
  const read = <T>(work: () => Promise<T>) => readStore(work, signal, options.deadlineMs, { timing, toolsMs: 0, store })
  const { prompt, served, rollout: stored } = await read(find)
  const rollout = stored === undefined || stored === null ? undefined : decodeRollout(stored)
  if (stored && !rollout) log.warn('rollout not applied: what is stored is no rollout', { prompt_id: prompt.id })
  // Only the tools the templates name are read: the catalogue's size costs a render nothing.
  const fixed = [...(options.overlay?.tools?.keys() ?? [])]
  const names = timing.measureSync('render', () => functionNames(prompt)).filter((n) => !fixed.includes(n))
  const tools = await read(() => findTools(store, names))
  const toolsById = new Map(tools.items.map((t) => [t.id, t]))
  const compiled = timing.measureSync('render', () => compile(prompt, [...toolsById.keys(), ...fixed, 'dict']))
  const called = compiled.analysis.functions.flatMap((name) => toolsById.get(name) ?? [])
  const args = checkArgs({ compiled, called })
  const { vars, skipped, bytes } = await read(() =>
    loadVariables(store, [...compiled.analysis.paths, ...basePaths(called)], options.environMaxBytes),
  )
  const plan: Plan = {
    record: prompt.record,
    compiled,
    served,
    called,
    vars,
    skipped,
    bytes,
    toolSkips: tools.skipped,
    answered: isGenerational(store) ? store.answered : 0,
    rollout,
    varsReadAt: isGenerational(store) ? store.treeReadAt : undefined,
  }
  return { plan, args }
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

/**
 * A read of the store, waited for until the render's deadline: when that
 * comes first (REDIS_TIMEOUT_MS is longer than what was left), the
 * RENDER_TIMEOUT says the time went to the store.
 */
async function readStore<T>(
  work: () => Promise<T>,
  signal: () => AbortSignal,
  deadlineMs: number,
  spent: Spent,
): Promise<T> {
  try {
    return await spent.timing.measure('redis', () => abortable(work(), signal()))
  } catch (e) {
    if (!signal().aborted || e instanceof ServiceError) throw e
    throw renderTimeout(deadlineMs, { ...spent, waiting: 'store' }, e)
  }
}

/** The functions a template may call: the tools it calls, those whose answers are fixed, and dict. */
function functionsFor(
  session: ToolSession | undefined,
  tools: readonly Tool[],
  fixed: ReadonlyMap<string, unknown> | undefined,
): Map<string, TemplateFunction> {
  const funcs = new Map<string, TemplateFunction>([['dict', dict]])
  if (session) for (const tool of tools) funcs.set(tool.id, session.functionFor(tool))
  // A fixed answer is JSON, as a REST tool's parsed answer is: the template reads it alike.
  for (const [id, answer] of fixed ?? []) funcs.set(id, () => answer as Value)
  return funcs
}

/**
 * The shared variables with `over` laid on them: objects merge key by key,
 * anything else replaces. `base` is shared and frozen: the objects on the
 * way down are copied, never written.
 */
function mergedOver(base: JsonObject, over: JsonObject): JsonObject {
  const merged: JsonObject = { ...base }
  for (const [key, value] of Object.entries(over)) {
    const below = Object.hasOwn(base, key) ? base[key] : undefined
    setOwn(merged, key, isObject(value) && isObject(below) ? mergedOver(below, value) : value)
  }
  return merged
}

function asServiceError(e: unknown, deadline: AbortSignal | undefined, deadlineMs: number, spent: Spent): unknown {
  const stopped = stoppedEarly(e, deadline, deadlineMs, spent)
  if (stopped) return stopped
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
