/**
 * Execution errors, placed and worded as Go's: the node Go's executor was at,
 * and its line and column; the place in execution order of each, so that the
 * failure Go would have met first is the one reported.
 */
import type { Limit } from '../errors'
import type { ArgNode, CommandNode, Node, PipeNode } from '../parse/nodes'

/**
 * A place in execution order: a path of integers, compared element by
 * element. Work rendered aside (a fork, the rest of an and/or) numbers its
 * events under the place where it started, so its order nests.
 */
export type Seq = readonly number[]

/** An execution failure, worded as Go words it: `template: NAME:LINE:COL: executing "NAME" at <...>: ...`. */
export class ExecError extends Error {
  override readonly name: string = 'ExecError'
  constructor(
    readonly templateName: string,
    readonly line: number,
    /** Go's column: UTF-8 bytes from the line's start, from 0 (the number after LINE: in the message). */
    readonly column: number,
    readonly detail: string,
    message: string,
    /** Execution order, so that the failure Go would have met first is the one reported. */
    readonly seq: Seq,
  ) {
    super(message)
  }
}

/**
 * An execution stopped by one of its limits rather than by the template's
 * logic: output or a builtin's string past maxOutput, {{template}} calls (or
 * the JS stack) past maxDepth, data printed deeper than maxDataDepth.
 */
export class LimitError extends ExecError {
  override readonly name: string = 'LimitError'
  constructor(
    readonly limit: Limit,
    templateName: string,
    line: number,
    column: number,
    detail: string,
    message: string,
    seq: Seq,
  ) {
    super(templateName, line, column, detail, message, seq)
  }
}

/**
 * Numbers the events of one flow of execution: the main walk, or work
 * rendered aside. A flow knows where it was forked, not the whole path:
 * forks nest as deep as the operands of an and/or pending one after the
 * other, and the path is made only when an error needs it.
 */
export class Order {
  #n = 0
  constructor(
    private readonly parent?: Order,
    /** The place in `parent` this flow was forked at. */
    private readonly place = 0,
  ) {}

  /** The next place in this flow (a number, made a Seq only when an error needs one). */
  next(): number {
    return ++this.#n
  }

  /** The Seq of place `n` of this flow. */
  at(n: number): Seq {
    const seq = [n]
    for (let flow: Order | undefined = this; flow.parent; flow = flow.parent) seq.push(flow.place)
    return seq.reverse()
  }

  /** A flow nested at this flow's next place: everything in it comes before what this flow does after. */
  fork(): Order {
    return new Order(this, this.next())
  }
}

/** Which of two places comes first in execution order (negative: a). */
function compareSeq(a: Seq, b: Seq): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number)
    if (d !== 0) return d
  }
  return a.length - b.length
}

/** Of two failures, the one Go would have met first: the earlier ExecError; anything else wins outright. */
export function firstFailure(a: unknown, b: unknown): unknown {
  if (a === undefined) return b
  if (b === undefined || !(a instanceof ExecError)) return a
  if (!(b instanceof ExecError)) return b
  return compareSeq(b.seq, a.seq) < 0 ? b : a
}

/**
 * The node Go's executor last visited evaluating a pipeline (its `s.at`),
 * where it reports errors found after evaluation, such as a range over a number.
 */
export function lastEvaluated(pipe: PipeNode): Node {
  const cmd = pipe.cmds[pipe.cmds.length - 1] as CommandNode
  const first = cmd.args[0] as ArgNode
  if (first.type !== 'identifier') return lastOfOperand(first)
  return cmd.args.length > 1 ? lastOfOperand(cmd.args[cmd.args.length - 1] as ArgNode) : first
}

/** The node Go's executor last visited evaluating an operand. */
export function lastOfOperand(arg: ArgNode): Node {
  if (arg.type === 'pipe') return lastEvaluated(arg)
  if (arg.type === 'chain') return arg.node.type === 'pipe' ? lastEvaluated(arg.node) : arg.node
  return arg
}
