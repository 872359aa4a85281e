/**
 * What one execution shares across the states that walk it: its options,
 * the template set, the calls in flight and the pending work, the output so
 * far, and the budget: the steps counted (nodes, range iterations, the
 * characters builtins and fmt touch, the operations waiting on pending
 * values), the characters builtins built, and what is remembered so that
 * reading a long string or a map again costs little.
 */
import { CHARS_PER_STEP, COMPARED_PER_CHAR, KEY_COST, PENDING_COST, sortCost } from '../costs'
import { LimitReached } from '../errors'
import { firstFailure } from './errors'
import type { Order } from './errors'
import type { FormatLimits } from '../fmt'
import { utf8Bytes } from '../fmt/utf8'
import { handled } from './maybe'
import type { Maybe } from './maybe'
import type { Tree } from '../parse/parser'
import { compareStrings, isMap, isTrue } from '../value'
import type { Value, ValueMap } from '../value'

/**
 * A function the caller supplies; it may return a Promise. Its `this` is the
 * execution's meter: a function whose work grows with its operands (copying
 * a map, say) counts it in the step budget, as builtins count theirs.
 */
export type TemplateFunction = (this: Meter, ...args: Value[]) => Maybe<Value>

/** Counts `chars` characters' worth of work (costs.ts); throws a TimeoutError past the budget or the deadline. */
export interface Meter {
  charge(chars: number): void
}

/** A typed parameter of a Go function: what text/template converts an operand to, or refuses. */
export type Param = 'string' | 'int'

export interface Builtin {
  /** Fixed parameters; with `variadic`, the least number of operands. */
  readonly arity: number
  readonly variadic: boolean
  /** Operands arrive as reflect.Values: missing stays undefined rather than becoming nil. */
  readonly raw: boolean
  /**
   * The Go types of the leading parameters (printf's format is a string; the
   * others are interface{}): the executor converts each operand as Go does,
   * and refuses one of another type.
   */
  readonly params?: readonly Param[]
  /** The builtin, its work counted and its strings bounded by `work`. */
  readonly call: Call
}

export type Call = (args: Value[], work: Work) => Value

export type MissingKey = 'default' | 'zero' | 'error'

export interface ExecOptions {
  /** The caller's function of that name, if any. */
  funcs: (name: string) => TemplateFunction | undefined
  /** What a name no caller's function has calls: the builtins, and the helpers if the template was parsed with them. */
  builtins: Readonly<Record<string, Builtin>>
  missingKey: MissingKey
  signal: AbortSignal | undefined
  /**
   * Output longer than this many characters is an error; so is any string a
   * builtin would build longer, and strings built past BUILT_PER_OUTPUT times it in all.
   */
  maxOutput: number
  /** Nested {{template}} calls deeper than this are an error. */
  maxDepth: number
  /** Slices and maps nested deeper than this cannot be printed. */
  maxDataDepth: number
  /** Date.now() past which execution stops with a TimeoutError, read as steps are counted: only `signal` ends a wait. */
  deadline: number | undefined
  /** Nodes, range iterations and builtins' characters (CHARS_PER_STEP a step) at most, then a TimeoutError. */
  maxSteps: number
  /** Steps between two turns given to the isolate's other work (ExecuteOptions.turnSteps); undefined: none. */
  turnSteps: number | undefined
  /** Told where an action printed `<no value>` (ExecuteOptions.onNoValue). */
  onNoValue: ((site: NoValueSite) => boolean | void) | undefined
}

/** Where an action printed Go's `<no value>`: the template it was parsed in, Go's line and column, the action. */
export type NoValueSite = {
  template: string
  line: number
  column: number
  /** The action as Go prints a node (`{{.args.x}}`), cut as execution errors cut it. */
  expression: string
}

/**
 * The characters an execution's builtins may build in all, in multiples of
 * maxOutput: each string is bounded by maxOutput, but a template could keep
 * any number of them in variables.
 */
const BUILT_PER_OUTPUT = 4

/** Steps between two readings of the clock: a power of 2, so that each step's test is a mask. */
export const STEPS_PER_CLOCK = 256

/** Strings shorter than this are measured again at each use; longer ones' bytes are remembered. */
const REMEMBERED_LENGTH = 256
/** How many long strings' bytes one execution remembers, at most one of each length. */
const REMEMBERED_STRINGS = 4

/** The step budget's TimeoutErrors, told apart from the deadline's by isStepBudget. */
const budgetErrors = new WeakSet<object>()

function overBudget(maxSteps: number): DOMException {
  const e = new DOMException(`the execution took more than ${maxSteps} steps`, 'TimeoutError')
  budgetErrors.add(e)
  return e
}

/** Whether `e` is an execution's step budget running out (a TimeoutError, as past the deadline). */
export function isStepBudget(e: unknown): boolean {
  return typeof e === 'object' && e !== null && budgetErrors.has(e)
}

function overdue(): DOMException {
  return new DOMException('the execution passed its deadline', 'TimeoutError')
}

/**
 * What builtins need of the execution. Every builtin counts its work, in
 * proportion to the characters it touches, and refuses to build a string
 * longer than the output limit before building it.
 */
export interface Work extends Meter {
  /** fmt's limits: maxOutput characters, maxDataDepth levels, and this work counted. */
  readonly limits: FormatLimits
  /** The UTF-8 bytes of s, or undefined when s is ASCII (its bytes are its characters); remembered for long strings. */
  bytes(s: string): Uint8Array | undefined
  /** Go's truth of v, a map's size counted once. */
  truth(v: Value): boolean
  /** How many keys m has, counted once an execution. */
  size(m: ValueMap): number
}

/** What one execution shares across its states: options, the template set, the budget, calls in flight. */
export class Run implements Work {
  // What most executions never need (a call that returned a Promise, a long
  // string, a map) is made when first needed: an execution of a small
  // template costs little more than its walk.

  /** Calls still pending, each once: what the execution waits for at its end even if nothing read them. */
  inflight: Set<Promise<Value>> | undefined
  /** The weight of the pending work of all flows (output.ts). */
  pending = 0
  outputLength = 0
  steps = 0
  #limits: FormatLimits | undefined
  /** Characters of the strings builtins built. */
  #built = 0
  /** Pending work made since a piece or a held value last took it, to weigh that one. */
  #made = 0
  /** The failure of a call met first in execution order, once its Promise failed. */
  #failure: unknown
  /**
   * The wrapper of each thenable a function returned, and the flow that made
   * it: a function returning one cached Promise costs one wrapper, not one a call.
   */
  #calls: WeakMap<object, { order: Order; value: Promise<Value> }> | undefined
  /**
   * UTF-8 bytes of long strings (undefined: ASCII), so a range of index calls
   * does not encode one per call; keyed by length, so that finding a string
   * compares it with one other at most.
   */
  #bytes: Map<number, { s: string; bytes: Uint8Array | undefined }> | undefined
  /** Sizes and sorted keys of maps: the data does not change during an execution. */
  #sizes: WeakMap<ValueMap, number> | undefined
  #sortedKeys: WeakMap<ValueMap, string[]> | undefined
  /** The step count at which the next turn is given (turnSteps). */
  #nextTurn: number
  /** The actions that printed `<no value>` and were reported; null once the caller heard enough. */
  #noValueAt: Set<object> | null | undefined

  constructor(
    readonly templates: ReadonlyMap<string, Tree>,
    readonly options: ExecOptions,
  ) {
    this.#nextTurn = options.turnSteps ?? Infinity
  }

  get limits(): FormatLimits {
    return (this.#limits ??= {
      maxLength: this.options.maxOutput,
      maxDepth: this.options.maxDataDepth,
      charge: (n) => this.charge(n),
      sortedKeys: (m) => this.sortedKeys(m),
    })
  }

  /** One step: a node walked or a range iteration. The clock is read every 256 steps. */
  step(): void {
    const steps = ++this.steps
    const { deadline, maxSteps } = this.options
    if (steps > maxSteps) throw overBudget(maxSteps)
    if (deadline !== undefined && (steps & (STEPS_PER_CLOCK - 1)) === 0 && Date.now() > deadline) throw overdue()
  }

  /**
   * A turn for the isolate's other work, once turnSteps steps have passed
   * since the last: a timer of 0 ms, whose wait lets every other callback
   * that is due run first. Undefined the rest of the time.
   */
  turn(): Promise<void> | undefined {
    const { turnSteps } = this.options
    if (turnSteps === undefined || this.steps < this.#nextTurn) return undefined
    this.#nextTurn = this.steps + turnSteps
    return new Promise((resolve) => setTimeout(resolve, 0))
  }

  /**
   * Counts the work of touching `chars` characters (a builtin's or fmt's), a
   * step per CHARS_PER_STEP, reading the clock whenever the count passes a
   * multiple of 256. Short strings cost nothing beyond their node's step.
   */
  charge(chars: number): void {
    if (chars < CHARS_PER_STEP) return
    const before = this.steps
    this.steps += Math.floor(chars / CHARS_PER_STEP)
    const { deadline, maxSteps } = this.options
    if (this.steps > maxSteps) throw overBudget(maxSteps)
    if (deadline !== undefined && this.steps >>> 8 !== before >>> 8 && Date.now() > deadline) throw overdue()
  }

  /**
   * Counts `n` operations waiting on a pending value, in the budget and in
   * the weight of the pending work they belong to.
   */
  waits(n: number): void {
    this.#made += n
    this.charge(n * PENDING_COST)
  }

  /** Counts `n` things kept for pending work (variables copied for later), in its weight only: copying was charged. */
  keeps(n: number): void {
    this.#made += n
  }

  /** The pending work made since the last call: what the piece or value now made pending weighs. */
  made(): number {
    const n = this.#made
    this.#made = 0
    return n
  }

  /**
   * What a call that returned `thenable` is worth: a Promise of its value,
   * or of `fail`'s error, which is the execution's failure even if nothing
   * reads it. A later call in the same flow that returns the same thenable
   * gets the same Promise: the first one's failure is the one Go would meet
   * first. In another flow (a branch rendered aside, which may come first in
   * execution order though it runs later) a call gets its own. A call costs
   * an operation even when it gets an earlier one's Promise; a new one, the
   * Promise and the handler that marks it handled.
   */
  call(thenable: PromiseLike<Value>, order: Order, fail: (e: unknown) => never): Promise<Value> {
    const calls = (this.#calls ??= new WeakMap())
    const inflight = (this.inflight ??= new Set())
    const known = calls.get(thenable)
    if (known?.order === order) {
      this.waits(1)
      return known.value
    }
    this.waits(2)
    const value: Promise<Value> = Promise.resolve(thenable).then(
      (v) => {
        inflight.delete(value)
        return v
      },
      (e: unknown) => {
        inflight.delete(value)
        try {
          return fail(e)
        } catch (error) {
          this.#failure = firstFailure(this.#failure, error)
          throw error
        }
      },
    )
    handled(value)
    inflight.add(value)
    calls.set(thenable, { order, value })
    return value
  }

  /**
   * Whether the action `node`'s `<no value>` is to be reported: the first
   * time it prints one, while the caller wants to hear (onNoValue answered
   * false to none). A loop printing one a million times is one report.
   */
  reportsNoValue(node: object): boolean {
    if (!this.options.onNoValue || this.#noValueAt === null) return false
    const seen = (this.#noValueAt ??= new Set())
    if (seen.has(node)) return false
    seen.add(node)
    return true
  }

  /** The caller heard enough `<no value>`s: none is reported again. */
  noValueHeard(): void {
    this.#noValueAt = null
  }

  /** The failure of a call met first in execution order, if any failed. */
  get failure(): unknown {
    return this.#failure
  }

  /**
   * Counts a string a builtin built, as it is built: past BUILT_PER_OUTPUT
   * times maxOutput in all, the execution ends (LimitReached, placed by the
   * executor), so that the strings it holds stay within that.
   */
  built(chars: number): void {
    this.#built += chars
    const max = BUILT_PER_OUTPUT * this.options.maxOutput
    if (this.#built > max) {
      throw new LimitReached(
        'maxOutput',
        `the strings built passed ${max} characters, ${BUILT_PER_OUTPUT} times the output limit`,
      )
    }
  }

  truth(v: Value): boolean {
    return isMap(v) ? this.size(v) > 0 : isTrue(v)
  }

  /** How many keys m has, counted once an execution. */
  size(m: ValueMap): number {
    const sizes = (this.#sizes ??= new WeakMap())
    let n = sizes.get(m) ?? this.#sortedKeys?.get(m)?.length
    if (n !== undefined) return n
    n = Object.keys(m).length
    this.charge(KEY_COST * n)
    sizes.set(m, n)
    return n
  }

  /** A map's keys in Go's order, for range and printing, sorted once an execution and paid for by their length. */
  sortedKeys(m: ValueMap): readonly string[] {
    const sorted = (this.#sortedKeys ??= new WeakMap())
    let keys = sorted.get(m)
    if (keys) return keys
    keys = Object.keys(m)
    this.charge(KEY_COST * keys.length + sortCost(keys))
    keys.sort(compareStrings)
    sorted.set(m, keys)
    return keys
  }

  /** The UTF-8 bytes of s (undefined: ASCII), a long string's remembered and looked up for a comparison's cost. */
  bytes(s: string): Uint8Array | undefined {
    if (s.length < REMEMBERED_LENGTH) return utf8Bytes(s)
    const remembered = (this.#bytes ??= new Map())
    const known = remembered.get(s.length)
    if (known) {
      // Equal strings that are not one string are compared whole.
      this.charge(s.length / COMPARED_PER_CHAR)
      if (known.s === s) return known.bytes
      remembered.delete(s.length)
    }
    this.charge(s.length)
    const bytes = utf8Bytes(s)
    if (remembered.size >= REMEMBERED_STRINGS) remembered.delete(remembered.keys().next().value as number)
    remembered.set(s.length, { s, bytes })
    return bytes
  }
}
