/**
 * The executor: Go's text/template exec.go, walking the immutable tree with
 * per-execution state (variables, output, depth) kept apart from it.
 *
 * Functions may return Promises. Operands and variables are read eagerly, in
 * template order; only what needs a pending value waits for it:
 *  - a printed value becomes a pending piece of output, joined at the end;
 *  - an if/range/with whose pipeline is pending is forked when its body
 *    cannot affect what follows (no `=` to outer variables, no break or
 *    continue leaving it): it renders into its own piece while the walk goes on;
 *  - otherwise the walk itself waits, and resumes where it stopped.
 * When nothing is pending, no Promise is created at all.
 */
import { formatValue, sprintf } from './fmt'
import { andThen, isPromise, loop } from './maybe'
import type { Maybe } from './maybe'
import type { BranchNode, ListNode, Node, TemplateNode } from './nodes'
import { nodeString } from './nodes'
import { lastEvaluated } from './errors'
import { forkable } from './fork'
import type { Tree } from './parser'
import { isMap, isTrue, sortedKeys } from './value'
import type { Value } from './value'
import { EMPTY } from './value'

import { Evaluator, handled } from './evaluate'
import type { Piece, Slot, Variable } from './evaluate'

/** A function the caller supplies; it may return a Promise. */
export type TemplateFunction = (...args: Value[]) => Maybe<Value>

export type MissingKey = 'default' | 'zero' | 'error'

export interface ExecOptions {
  funcs: ReadonlyMap<string, TemplateFunction>
  missingKey: MissingKey
  signal: AbortSignal | undefined
  /** Output longer than this many characters is an error. */
  maxOutput: number
  /** Nested {{template}} calls deeper than this are an error. */
  maxDepth: number
  /** Date.now() past which execution stops with a TimeoutError, pending or not. */
  deadline: number | undefined
  /** Nodes and range iterations at most, then a TimeoutError: a budget no clock can miss. */
  maxSteps: number
}

type Signal = 'break' | 'continue' | undefined

/** What one execution shares across its states: options, the template set, ordering, calls in flight. */
export class Run {
  #seq = 0
  readonly inflight: Promise<unknown>[] = []
  outputLength = 0
  steps = 0

  constructor(
    readonly templates: ReadonlyMap<string, Tree>,
    readonly options: ExecOptions,
  ) {}

  nextSeq(): number {
    return ++this.#seq
  }
}

/** Go's `state`: where an execution is, and what it has written; the walk over the tree. */
export class State extends Evaluator {
  /**
   * Stops a cancelled or overdue execution. A synchronous walk never lets a
   * timer fire, and deployed Workers' clock stands still during CPU work, so
   * a step budget bounds the work too; the clock is read every 256 steps.
   */
  private check(): void {
    const { signal, deadline, maxSteps } = this.run.options
    if (signal?.aborted) throw signal.reason
    const steps = ++this.run.steps
    if (steps > maxSteps) throw new DOMException(`the execution took more than ${maxSteps} steps`, 'TimeoutError')
    if (deadline !== undefined && (steps & 255) === 0 && Date.now() > deadline) {
      throw new DOMException('the execution passed its deadline', 'TimeoutError')
    }
  }

  // Output.

  private write(piece: Piece): void {
    if (isPromise(piece)) handled(piece)
    else {
      this.run.outputLength += piece.length
      if (this.run.outputLength > this.run.options.maxOutput) {
        throw this.error(undefined, `output exceeds the limit of ${this.run.options.maxOutput} characters`)
      }
    }
    this.out.push(piece)
  }

  // Walking.

  walk(dot: Slot, node: Node): Maybe<Signal> {
    this.check()
    switch (node.type) {
      case 'action': {
        const value = this.evalPipeline(dot, node.pipe)
        if (node.pipe.decl.length === 0) {
          this.write(isPromise(value) ? value.then(printValue) : printValue(value as Value))
        }
        return undefined
      }
      case 'break':
      case 'continue':
        return node.type
      case 'comment':
        return undefined
      case 'if':
      case 'with':
      case 'range':
        return this.walkBranch(dot, node)
      case 'list':
        return this.walkList(dot, node)
      case 'template':
        return this.walkTemplate(dot, node)
      case 'text':
        this.write(node.text)
        return undefined
      default:
        throw this.error(node, `unknown node: ${nodeString(node)}`)
    }
  }

  walkList(dot: Slot, list: ListNode): Maybe<Signal> {
    return loop<Exclude<Signal, undefined>>(0, list.nodes.length, (i) => this.walk(dot, list.nodes[i] as Node))
  }

  /** if, with and range: evaluate the pipeline, then walk a list, waiting or forking if it is pending. */
  private walkBranch(dot: Slot, node: BranchNode): Maybe<Signal> {
    const mark = this.vars.length
    const value = this.evalPipeline(dot, node.pipe)
    if (!isPromise(value)) return this.finally(this.branchOn(dot, node, value as Value), mark)
    if (!forkable(node)) return value.then((v) => this.finally(this.branchOn(dot, node, v), mark))
    // The body cannot change what follows: render it aside, in place, and go on.
    const fork = new State(
      this.run,
      this.tree,
      this.vars.map((v) => ({ ...v })),
      this.depth,
      [],
      this.nextSeq(),
    )
    this.pop(mark)
    this.write(value.then((v) => andThen(fork.branchOn(dot, node, v), () => joinPieces(fork.out))))
    return undefined
  }

  private finally(signal: Maybe<Signal>, mark: number): Maybe<Signal> {
    return andThen(signal, (s) => {
      this.pop(mark)
      return s
    })
  }

  private branchOn(dot: Slot, node: BranchNode, value: Value): Maybe<Signal> {
    if (node.type === 'range') return this.walkRange(dot, node, value)
    if (isTrue(value)) return this.walkList(node.type === 'with' ? { value, wrapped: false } : dot, node.list)
    return node.elseList ? this.walkList(dot, node.elseList) : undefined
  }

  private walkRange(dot: Slot, node: BranchNode, value: Value): Maybe<Signal> {
    const decl = node.pipe.decl.length
    const mark = this.vars.length
    const iteration = (index: Value, elem: Value, wrapped: boolean): Maybe<'break' | undefined> => {
      this.check()
      if (decl > 0) Object.assign(this.vars[this.vars.length - 1] as Variable, { value: elem, wrapped })
      if (decl > 1) Object.assign(this.vars[this.vars.length - 2] as Variable, { value: index, wrapped: false })
      return andThen(this.walkList({ value: elem, wrapped }, node.list), (signal) => {
        this.pop(mark)
        return signal === 'break' ? 'break' : undefined
      })
    }
    const done = (): undefined => undefined
    if (value === EMPTY) return node.elseList ? this.walkList(dot, node.elseList) : undefined
    if (Array.isArray(value) && value.length > 0) {
      return andThen(
        loop(0, value.length, (i) => iteration(BigInt(i), value[i], true)),
        done,
      )
    }
    if (isMap(value)) {
      const keys = sortedKeys(value)
      if (keys.length > 0)
        return andThen(
          loop(0, keys.length, (i) => iteration(keys[i], value[keys[i] as string], true)),
          done,
        )
    } else if (typeof value === 'bigint') {
      // Go 1.22: range over an integer.
      if (decl > 1) {
        throw this.error(
          lastEvaluated(node.pipe),
          `can't use ${formatValue(value)} to iterate over more than one variable`,
        )
      }
      if (value > 0n)
        return andThen(
          loop(0, Number(value), (i) => iteration(BigInt(i), BigInt(i), false)),
          done,
        )
    } else if (value !== undefined && !Array.isArray(value)) {
      throw this.error(lastEvaluated(node.pipe), `range can't iterate over ${formatValue(value)}`)
    }
    return node.elseList ? this.walkList(dot, node.elseList) : undefined
  }

  private walkTemplate(dot: Slot, node: TemplateNode): Maybe<Signal> {
    const tree = this.run.templates.get(node.name)
    if (!tree) throw this.error(node, `template ${sprintf('%q', [node.name])} not defined`)
    if (this.depth >= this.run.options.maxDepth) {
      throw this.error(node, `exceeded maximum template depth (${this.run.options.maxDepth})`)
    }
    const value = node.pipe ? this.evalPipeline(dot, node.pipe) : undefined
    const called = new State(
      this.run,
      tree,
      [{ name: '$', value, wrapped: false }],
      this.depth + 1,
      this.out,
      this.seqBase,
    )
    return andThen(called.walkList({ value, wrapped: false }, tree.root), () => undefined)
  }
}

function printValue(v: Value): string {
  if (v === undefined) return '<no value>'
  return v === EMPTY ? '' : formatValue(v)
}

/** Joins output pieces, waiting for those still pending, in order. */
export function joinPieces(pieces: readonly Piece[]): Maybe<string> {
  return pieces.some(isPromise) ? Promise.all(pieces).then((parts) => parts.join('')) : (pieces as string[]).join('')
}
