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
 * When nothing is pending, no Promise is created at all. When an execution
 * holds too much pending work, a flow waits for some of its own to arrive
 * before walking on (output.ts).
 */
import { formatValue, sprintf } from '../fmt'
import { andThen, isPromise } from './maybe'
import type { Maybe } from './maybe'
import type { BranchNode, ListNode, Node, TemplateNode } from '../parse/nodes'
import { DOLLAR, elseBranch, quotedNode } from '../parse/nodes'
import { lastEvaluated } from './errors'
import { forkable } from './fork'
import { isMap } from '../value'
import type { Value } from '../value'
import { EMPTY } from '../value'

import { Evaluator } from './evaluate'
import { Output } from './output'
import { Variables } from './variables'
import type { Slot } from './variables'

type Signal = 'break' | 'continue' | undefined

/**
 * Go's `state`: where an execution is, and what it has written; the walk over
 * the tree. The chain State → Evaluator → Reporter is deliberate, Go's own
 * shape: Go's state is one object whose methods walk (walk*), evaluate (eval*)
 * and place errors (errorf) over the same template, variables and output; its
 * three jobs are split by file (exec.ts, evaluate.ts, reporter.ts), and one
 * object a flow of execution keeps the walk free of indirection.
 */
export class State extends Evaluator {
  /**
   * Stops a cancelled or overdue execution. A synchronous walk never lets a
   * timer fire, and deployed Workers' clock stands still during CPU work, so
   * a step budget bounds the work too; the clock is read every 256 steps.
   */
  private check(): void {
    const signal = this.run.options.signal
    if (signal?.aborted) throw signal.reason
    this.run.step()
  }

  // Output.

  /** Counts s into the output, which may not grow past maxOutput. */
  private count(s: string, node: Node, seq?: number): string {
    this.run.outputLength += s.length
    const { maxOutput } = this.run.options
    if (this.run.outputLength > maxOutput) {
      throw this.limitError(node, 'maxOutput', `output exceeds the limit of ${maxOutput} characters`, seq)
    }
    return s
  }

  private write(piece: string, node: Node): void {
    this.out.write(this.count(piece, node))
  }

  /** A value printed by an action; a pending one is counted when it arrives. */
  private print(value: Maybe<Value>, node: Node): void {
    if (!isPromise(value)) {
      this.write(this.format(value as Value, node), node)
      return
    }
    const seq = this.order.next()
    this.pend(value, (v) => this.count(this.format(v, node, seq), node, seq))
  }

  /** A piece of output made once `value` arrives: its Promise and the one writing it in place. */
  private pend<T>(value: Promise<T>, arrive: (v: T) => Maybe<string>): void {
    this.run.waits(2)
    this.out.pend(value, arrive, this.run.made())
  }

  /** Pending work that writes nothing (a value kept in a variable, a template's dot), weighed until it settles. */
  private hold(value: Maybe<Value>): void {
    if (!isPromise(value)) return
    this.run.waits(1)
    this.out.hold(value, this.run.made())
  }

  private format(v: Value, node: Node, seq?: number): string {
    if (v === undefined) {
      this.noValue(node)
      return '<no value>'
    }
    if (v === EMPTY) return ''
    // Only slices and maps are printed piece by piece, within the limits.
    if (typeof v !== 'object' || v === null) return formatValue(v)
    try {
      return formatValue(v, this.run.limits)
    } catch (e) {
      throw this.limitReached(e, node, '', seq) ?? e
    }
  }

  /** Tells the caller, once an action, that it printed `<no value>`; the output stays Go's. */
  private noValue(node: Node): void {
    if (!this.run.reportsNoValue(node)) return
    if (this.run.options.onNoValue?.(this.site(node)) === false) this.run.noValueHeard()
  }

  // Walking.

  walk(dot: Slot, node: Node): Maybe<Signal> {
    this.check()
    const wait = this.out.backpressure() ?? this.run.turn()
    // Waking, it checks again: the execution may have been aborted meanwhile.
    return wait ? wait.then(() => this.walk(dot, node)) : this.visit(dot, node)
  }

  private visit(dot: Slot, node: Node): Maybe<Signal> {
    // The commonest first: a switch on strings compares them in order.
    switch (node.type) {
      case 'text':
        this.write(node.text, node)
        return undefined
      case 'action': {
        const value = this.evalPipeline(dot, node.pipe)
        if (node.pipe.decl.length === 0) this.print(value, node)
        else this.hold(value)
        return undefined
      }
      case 'if':
      case 'with':
      case 'range':
        return this.walkBranch(dot, node)
      case 'template':
        return this.walkTemplate(dot, node)
      case 'break':
      case 'continue':
        return node.type
      case 'comment':
        return undefined
      case 'list':
        return this.walkList(dot, node)
      default:
        throw this.error(node, `unknown node: ${quotedNode(node)}`)
    }
  }

  walkList(dot: Slot, list: ListNode, from = 0): Maybe<Signal> {
    const nodes = list.nodes
    for (let i = from; i < nodes.length; i++) {
      const signal = this.walk(dot, nodes[i] as Node)
      if (isPromise(signal)) return signal.then((s) => (s === undefined ? this.walkList(dot, list, i + 1) : s))
      if (signal !== undefined) return signal
    }
    return undefined
  }

  /** if, with and range: evaluate the pipeline, then walk a list, waiting or forking if it is pending. */
  private walkBranch(dot: Slot, node: BranchNode): Maybe<Signal> {
    return this.walkLinks(dot, node, this.vars.mark, false)
  }

  /**
   * A branch and the {{else if}} or {{else with}} links chained to it, in a
   * loop: a chain may be thousands of links long. Each link's variables
   * live until the chain's {{end}}, as each link is inside the one before.
   * A pending pipeline forks when nothing from that link on can change what
   * follows, or waits; the rest of the chain goes on after it, in the fork
   * waiting for any later pending link (nothing in the fork follows the
   * chain, so a fork of the fork would only nest its execution order).
   */
  private walkLinks(dot: Slot, node: BranchNode, mark: number, inFork: boolean): Maybe<Signal> {
    for (let link = node; ;) {
      const value = this.evalPipeline(dot, link.pipe)
      if (isPromise(value)) {
        const at = link
        if (inFork || !forkable(at)) return this.then(value, (v) => this.linkOn(dot, at, v, mark, inFork))
        // The rest cannot change what follows: render it aside, in place, and go on.
        const fork = new State(
          this.run,
          this.tree,
          this.vars.copy(),
          this.depth,
          new Output(this.run),
          this.order.fork(),
        )
        this.run.keeps(this.vars.mark)
        this.vars.pop(mark)
        // Its pieces counted themselves as they were written.
        this.pend(value, (v) => andThen(fork.linkOn(dot, at, v, mark, true), () => fork.out.join()))
        return undefined
      }
      const taken = this.taken(link, value as Value)
      const next = taken ? undefined : elseBranch(link)
      if (!next) return this.finally(this.branchOn(dot, link, value as Value, taken), mark)
      this.check()
      link = next
    }
  }

  /** Where a link's pending value arrived: its list, or the rest of the chain. */
  private linkOn(dot: Slot, link: BranchNode, value: Value, mark: number, inFork: boolean): Maybe<Signal> {
    const taken = this.taken(link, value)
    const next = taken ? undefined : elseBranch(link)
    if (!next) return this.finally(this.branchOn(dot, link, value, taken), mark)
    this.check()
    return this.walkLinks(dot, next, mark, inFork)
  }

  /** Whether `value` takes a branch's own list (a range decides by itself), rather than its else. */
  private taken(node: BranchNode, value: Value): boolean {
    return node.type === 'range' || this.run.truth(value)
  }

  private finally(signal: Maybe<Signal>, mark: number): Maybe<Signal> {
    if (!isPromise(signal)) {
      this.vars.pop(mark)
      return signal
    }
    return signal.then((s) => {
      this.vars.pop(mark)
      return s
    })
  }

  private branchOn(dot: Slot, node: BranchNode, value: Value, taken: boolean): Maybe<Signal> {
    if (node.type === 'range') return this.walkRange(dot, node, value)
    if (taken) return this.walkList(node.type === 'with' ? { value, wrapped: false } : dot, node.list)
    return node.elseList ? this.walkList(dot, node.elseList) : undefined
  }

  private walkRange(dot: Slot, node: BranchNode, value: Value): Maybe<Signal> {
    if (value === EMPTY) return node.elseList ? this.walkList(dot, node.elseList) : undefined
    if (Array.isArray(value) && value.length > 0) {
      return this.iterate(node, value.length, BigInt, (i) => value[i], true)
    }
    if (isMap(value)) {
      const keys = this.run.sortedKeys(value)
      if (keys.length > 0)
        return this.iterate(
          node,
          keys.length,
          (i) => keys[i],
          (i) => value[keys[i] as string],
          true,
        )
    } else if (typeof value === 'bigint') {
      // Go 1.22: range over an integer.
      if (node.pipe.decl.length > 1) {
        throw this.error(
          lastEvaluated(node.pipe),
          `can't use ${formatValue(value)} to iterate over more than one variable`,
        )
      }
      if (value > 0n) return this.iterate(node, Number(value), BigInt, BigInt, false)
    } else if (value !== undefined && !Array.isArray(value)) {
      throw this.error(lastEvaluated(node.pipe), `range can't iterate over ${formatValue(value)}`)
    }
    return node.elseList ? this.walkList(dot, node.elseList) : undefined
  }

  /**
   * A range's iterations from `from` on, each setting its variables (the
   * element, then the key) and walking the list; waiting, and resuming, only
   * where an iteration is pending. A key is made only for a variable to hold it.
   */
  private iterate(
    node: BranchNode,
    n: number,
    key: (i: number) => Value,
    elem: (i: number) => Value,
    wrapped: boolean,
    from = 0,
  ): Maybe<undefined> {
    const decl = node.pipe.decl.length
    const mark = this.vars.mark
    for (let i = from; i < n; i++) {
      this.check()
      const value = elem(i)
      if (decl > 0) {
        const element = this.vars.top(0)
        element.value = value
        element.wrapped = wrapped
      }
      if (decl > 1) {
        const index = this.vars.top(1)
        index.value = key(i)
        index.wrapped = false
      }
      const signal = this.walkList({ value, wrapped }, node.list)
      if (isPromise(signal)) {
        return signal.then((s) => {
          this.vars.pop(mark)
          return s === 'break' ? undefined : this.iterate(node, n, key, elem, wrapped, i + 1)
        })
      }
      this.vars.pop(mark)
      if (signal === 'break') return undefined
    }
    return undefined
  }

  private walkTemplate(dot: Slot, node: TemplateNode): Maybe<Signal> {
    const tree = this.run.templates.get(node.name)
    if (!tree) throw this.error(node, `template ${sprintf('%q', [node.name])} not defined`)
    if (this.depth >= this.run.options.maxDepth) {
      throw this.limitError(node, 'maxDepth', `exceeded maximum template depth (${this.run.options.maxDepth})`)
    }
    const value = node.pipe ? this.evalPipeline(dot, node.pipe) : undefined
    this.hold(value)
    const called = new State(
      this.run,
      tree,
      new Variables(this.run, [{ id: DOLLAR, value, wrapped: false }]),
      this.depth + 1,
      this.out,
      this.order,
    )
    const signal = called.walkList({ value, wrapped: false }, tree.root)
    return isPromise(signal) ? signal.then(() => undefined) : undefined
  }
}
