/**
 * Go's text/template for Workers: parse once, execute many times, with
 * functions that may return Promises.
 *
 *   const t = parse('greeting', 'Hello {{.name}}{{lookup .id}}', { functions: ['lookup'] })
 *   await t.execute({ name: 'Ada', id: 7 }, { funcs: { lookup }, missingKey: 'error' })
 *
 * A Template is immutable and safe to share between concurrent executions;
 * each execution keeps its own state.
 */
import { abortable } from '../abort'
import { analyze } from './parse/analysis'
import type { Analysis } from './parse/analysis'
import { BUILTINS } from './exec/builtins'
import type { Builtin } from './exec/run'
import { HELPERS } from './funcs'
import { isStackOverflow, isTooLarge } from './errors'
import type { Limit } from './errors'
import { ExecError, LimitError, Order, firstFailure } from './exec/errors'
import { State } from './exec/exec'
import { Output } from './exec/output'
import { Run, STEPS_PER_CLOCK } from './exec/run'
import type { MissingKey, NoValueSite, TemplateFunction } from './exec/run'
import { isPromise } from './exec/maybe'
import type { Maybe } from './exec/maybe'
import { DOLLAR } from './parse/nodes'
import type { ListNode } from './parse/nodes'
import { isEmptyTree, parseInto } from './parse/parser'
import type { Tree } from './parse/parser'
import type { Value } from './value'
import { Variables } from './exec/variables'

export { ExecError, LimitError } from './exec/errors'
export type { Limit } from './errors'
export type { Meter, MissingKey, NoValueSite, TemplateFunction } from './exec/run'
export { isStepBudget } from './exec/run'
export { ParseError } from './parse/parser'
export { MAX_NESTING } from './parse/expressions'
export type { Tree } from './parse/parser'
export { mergeAnalyses } from './parse/analysis'
export type { Analysis, CallSite, Path, ReadSite, Site } from './parse/analysis'
export { Complex128, EMPTY, Uint8, isMap } from './value'
// For code outside that copies template values or measures strings as the engine does.
export { JSON_CHAR_COST, JSON_MEMBER_COST } from './costs'
export { utf8Length } from './fmt/utf8'
export { HELPER_NAMES } from './funcs'
/** The functions every template has, as Go's: sorted. */
export const BUILTIN_NAMES: readonly string[] = Object.freeze(Object.keys(BUILTINS).sort())
export type { Value, ValueMap } from './value'

export interface ParseOptions {
  /**
   * Names of the functions the caller will supply. A call to any other
   * (builtins aside) is a parse error, as in Go. Omit to check at execution
   * instead (Go's SkipFuncCheck). A predicate says for each name whether the
   * caller supplies it: `() => true` parses every identifier as a call (`break` and
   * `continue` too), which names every function the caller could supply.
   */
  functions?: Iterable<string> | ((name: string) => boolean)
  /** More named templates, parsed into the same set, for {{template "name"}}. */
  templates?: Readonly<Record<string, string>>
  leftDelim?: string
  rightDelim?: string
  /**
   * Sprig's helper functions (`upper`, `toJson`, `default`, ...; see
   * HELPER_NAMES and the README) besides the builtins, for this template's
   * executions too. A caller's function of the same name wins over a helper.
   */
  helpers?: boolean
}

export interface ExecuteOptions {
  funcs?: Readonly<Record<string, TemplateFunction>> | ReadonlyMap<string, TemplateFunction>
  /** Go's missingkey option: `default` prints "<no value>", `zero` gives nil, `error` fails. Default: `default`. */
  missingKey?: MissingKey
  /** Aborts execution and stops waiting for pending calls; the execution rejects with the signal's reason. */
  signal?: AbortSignal
  /**
   * Characters of output at most (default 4 MiB of characters); no builtin
   * builds a longer string either, nor more than 4 times it in all. Past
   * it: LimitError.
   */
  maxOutput?: number
  /** Nested {{template}} calls at most (default 1000; Go's is 100000, beyond a JS stack). Past it: LimitError. */
  maxDepth?: number
  /** Levels of slices and maps inside one another that printing may go through (default 100). Past it: LimitError. */
  maxDataDepth?: number
  /**
   * A Date.now() after which execution rejects with a TimeoutError, even in
   * the middle of synchronous work (where a signal's timer cannot fire).
   */
  deadline?: number
  /**
   * Steps at most (default 10 million): a node walked, a range iteration, or
   * 64 characters' worth of a builtin's work (costs.ts). Past it: a
   * TimeoutError, as past the deadline.
   */
  maxSteps?: number
  /**
   * Every so many steps, the walk waits for a timer of 0 ms before going on,
   * so that other work of the isolate (another request's I/O) runs between:
   * one long execution does not hold up the rest until its budget ends.
   * Default: never (an execution with no pending call stays synchronous).
   */
  turnSteps?: number
  /**
   * Called when an action prints Go's `<no value>` (a missing key under
   * missingkey=default or an `index` of one, a null value), once an action
   * an execution, with where it is; the output is Go's all the same. Return
   * false to hear no more of this execution's.
   */
  onNoValue?: (site: NoValueSite) => boolean | void
}

const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024
const DEFAULT_MAX_DEPTH = 1000
const DEFAULT_MAX_DATA_DEPTH = 100
const DEFAULT_MAX_STEPS = 10_000_000

/** The builtins and the helpers: no name is both. */
const WITH_HELPERS: Readonly<Record<string, Builtin>> = { ...BUILTINS, ...HELPERS }

export class Template {
  #analysis: Analysis | undefined
  /** The template's output when it is only text and comments (false when it is not): computed once. */
  #constant: string | false | undefined

  /** This template's tree, found once: the set does not change. */
  readonly #tree: Tree | undefined

  /** @internal Use parse(). */
  constructor(
    readonly name: string,
    readonly trees: ReadonlyMap<string, Tree>,
    /** Whether the set was parsed with the helpers, which its executions then call. */
    readonly helpers = false,
  ) {
    this.#tree = trees.get(name)
  }

  /** Another template of the same set, as Go's Lookup: {{define}}s and extra templates share one set. */
  lookup(name: string): Template | undefined {
    return this.trees.has(name) ? new Template(name, this.trees, this.helpers) : undefined
  }

  /** What the template reads and calls (computed once). */
  get analysis(): Analysis {
    this.#analysis ??= analyze(this.trees, this.name)
    return this.#analysis
  }

  /** Renders the template with `data` (JSON values). Rejects with ExecError, or the signal's reason. */
  execute(data: unknown, options: ExecuteOptions = {}): Promise<string> {
    try {
      return Promise.resolve(this.render(data, options))
    } catch (e) {
      return Promise.reject(e)
    }
  }

  /**
   * Renders as execute does, synchronously when no function returned a
   * Promise: then it returns the text, or throws, and makes no Promise at
   * all; otherwise it returns a Promise as execute does.
   */
  render(data: unknown, options: ExecuteOptions = {}): Maybe<string> {
    const tree = this.#tree
    if (!tree)
      throw new ExecError(
        this.name,
        0,
        0,
        'incomplete or empty template',
        `template: ${this.name}: "${this.name}" is an incomplete or empty template`,
        [],
      )
    const signal = options.signal
    this.#constant ??= constantText(tree.root)
    // Plain text within every limit is a copy; anywhere near one, the walk below meets it where Go would.
    const text = this.#constant
    if (
      text !== false &&
      !signal?.aborted &&
      tree.root.nodes.length < STEPS_PER_CLOCK &&
      tree.root.nodes.length <= (options.maxSteps ?? DEFAULT_MAX_STEPS) &&
      text.length <= (options.maxOutput ?? DEFAULT_MAX_OUTPUT)
    ) {
      return text
    }
    const run = new Run(this.trees, {
      funcs: functionsOf(options.funcs),
      builtins: this.helpers ? WITH_HELPERS : BUILTINS,
      missingKey: options.missingKey ?? 'default',
      signal,
      maxOutput: options.maxOutput ?? DEFAULT_MAX_OUTPUT,
      maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
      maxDataDepth: options.maxDataDepth ?? DEFAULT_MAX_DATA_DEPTH,
      deadline: options.deadline,
      maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
      turnSteps: options.turnSteps,
      onNoValue: options.onNoValue,
    })
    // Go's reflect.ValueOf(nil) is the invalid value.
    const root = (data ?? undefined) as Value
    const out = new Output(run)
    const vars = new Variables(run, [{ id: DOLLAR, value: root, wrapped: false }])
    const state = new State(run, tree, vars, 0, out, new Order())
    let rendering: Maybe<string>
    try {
      const walked = state.walkList({ value: root, wrapped: false }, tree.root)
      rendering = isPromise(walked) ? walked.then(() => out.join()) : out.join()
    } catch (e) {
      if (!run.inflight?.size) throw asError(e, this.name, signal)
      return this.#settle(run, Promise.reject(e), signal)
    }
    if (!isPromise(rendering) && !run.inflight?.size) return rendering
    return this.#settle(run, Promise.resolve(rendering), signal)
  }

  /** The end of an execution that waits: its text, once the calls nothing waited for have settled too. */
  async #settle(run: Run, rendering: Promise<string>, signal: AbortSignal | undefined): Promise<string> {
    let text: string | undefined
    let failure: unknown
    try {
      text = await abortable(rendering, signal)
    } catch (e) {
      failure = e
    }
    // Calls whose values nothing waited for: their failures are the execution's too.
    if (run.inflight?.size) await abortable(Promise.allSettled(run.inflight), signal)
    failure = firstFailure(failure, run.failure)
    if (failure !== undefined) throw asError(failure, this.name, signal)
    return text as string
  }
}

/**
 * Parses `text` as template `name`, with the templates it defines and any
 * extra ones. Throws ParseError with Go's wording and the line.
 */
export function parse(name: string, text: string, options: ParseOptions = {}): Template {
  const trees = new Map<string, Tree>()
  const helpers = options.helpers ?? false
  let hasFunction: ((fn: string) => boolean) | undefined
  if (options.functions) {
    const supplied = suppliedBy(options.functions)
    const builtins = helpers ? WITH_HELPERS : BUILTINS
    hasFunction = (fn) => supplied(fn) || Object.hasOwn(builtins, fn)
  }
  const parseOptions = { leftDelim: options.leftDelim, rightDelim: options.rightDelim, hasFunction }
  for (const [extraName, extraText] of [...Object.entries(options.templates ?? {}), [name, text] as const]) {
    const parsed = new Map<string, Tree>()
    parseInto(parsed, extraName, extraText, parseOptions)
    for (const [treeName, tree] of parsed) associate(trees, treeName, tree)
  }
  return new Template(name, trees, helpers)
}

/** Whether the caller supplies a function, as ParseOptions.functions says. */
function suppliedBy(functions: NonNullable<ParseOptions['functions']>): (name: string) => boolean {
  if (typeof functions === 'function') return functions
  const known = new Set(functions)
  return (name) => known.has(name)
}

/**
 * Go's Template.associate: a later parse's definition replaces an earlier
 * one of the same name, unless it is empty (only space and comments).
 */
function associate(trees: Map<string, Tree>, name: string, tree: Tree): void {
  if (trees.has(name) && isEmptyTree(tree.root)) return
  trees.set(name, tree)
}

/**
 * What leaves an execution: the signal's reason once aborted; the JS
 * engine's own limits, where nothing placed them, as LimitErrors; anything
 * else as it is (a RangeError that is not about size is a bug).
 */
function asError(e: unknown, name: string, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason
  // Out of stack: templates call one another, or data nests, deeper than the engine can follow.
  if (isStackOverflow(e)) return limitError('maxDepth', name, 'the template recurses too deeply')
  if (isTooLarge(e)) return limitError('maxOutput', name, `a value grew too large (${e.message})`)
  return e
}

/** What a list of text and comments only prints, each node a step; false when it holds anything else. */
function constantText(list: ListNode): string | false {
  let text = ''
  for (const node of list.nodes) {
    if (node.type === 'text') text += node.text
    else if (node.type !== 'comment') return false
  }
  return text
}

const NO_FUNCTIONS = (): undefined => undefined

/** The caller's functions, found by name without copying them into a Map at every execution. */
function functionsOf(funcs: ExecuteOptions['funcs']): (name: string) => TemplateFunction | undefined {
  if (!funcs) return NO_FUNCTIONS
  if (funcs instanceof Map) return (name) => funcs.get(name)
  const record = funcs as Readonly<Record<string, TemplateFunction>>
  return (name) => (Object.hasOwn(record, name) ? record[name] : undefined)
}

function limitError(limit: Limit, name: string, detail: string): LimitError {
  return new LimitError(limit, name, 0, 0, detail, `template: ${name}: ${detail}`, [])
}
