/**
 * Execution errors, placed and worded as Go's: the node Go's executor was at,
 * and its line and column.
 */
import type { ArgNode, CommandNode, Node, PipeNode } from './nodes'

/** An execution failure, worded as Go words it: `template: NAME:LINE:COL: executing "NAME" at <...>: ...`. */
export class ExecError extends Error {
  override readonly name = 'ExecError'
  constructor(
    readonly templateName: string,
    readonly line: number,
    readonly column: number,
    readonly detail: string,
    message: string,
    /** Execution order, so that the failure Go would have met first is the one reported. */
    readonly seq: number,
  ) {
    super(message)
  }
}

/** Go's line and column of a position: the column counts UTF-8 bytes from the line's start. */
export function location(text: string, pos: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: utf8.encode(text.slice(lineStart, pos)).length }
}

const utf8 = new TextEncoder()

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

function lastOfOperand(arg: ArgNode): Node {
  if (arg.type === 'pipe') return lastEvaluated(arg)
  if (arg.type === 'chain') return arg.node.type === 'pipe' ? lastEvaluated(arg.node) : arg.node
  return arg
}
