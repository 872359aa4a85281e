/**
 * Execution errors placed where the executor is, as Go's state.errorf
 * places them: at a node of the template being executed, with its line and
 * column, Go's wording with the node itself as context, and the failure's
 * place in execution order. The base of the executor's states.
 */
import { LimitReached, isTooLarge } from '../errors'
import type { Limit } from '../errors'
import { location } from '../parse/locator'
import { ExecError, LimitError } from './errors'
import type { Order } from './errors'
import type { NoValueSite } from './run'
import { sprintf } from '../fmt'
import type { Node } from '../parse/nodes'
import { quotedNode } from '../parse/nodes'
import type { Tree } from '../parse/parser'

export class Reporter {
  constructor(
    readonly tree: Tree,
    /** This flow's execution order: the main walk's, or that of work rendered aside. */
    readonly order: Order,
  ) {}

  /** An ExecError at `node`, with Go's location and context. */
  error(node: Node | undefined, detail: string, seq: number = this.order.next()): ExecError {
    const { line, column, message } = this.where(node, detail)
    return new ExecError(this.tree.name, line, column, detail, message, this.order.at(seq))
  }

  /** A LimitError at `node`: the execution reached `limit`. */
  limitError(node: Node | undefined, limit: Limit, detail: string, seq: number = this.order.next()): LimitError {
    const { line, column, message } = this.where(node, detail)
    return new LimitError(limit, this.tree.name, line, column, detail, message, this.order.at(seq))
  }

  /**
   * A limit that fmt or a builtin reached (a LimitReached, which knows no
   * node, or the JS engine refusing a value that large) as a LimitError at
   * `node`, its message after `context`; undefined for any other failure.
   */
  limitReached(e: unknown, node: Node, context: string, seq?: number): LimitError | undefined {
    if (e instanceof LimitReached) return this.limitError(node, e.limit, context + e.message, seq)
    if (isTooLarge(e)) return this.limitError(node, 'maxOutput', `${context}a value grew too large (${e.message})`, seq)
    return undefined
  }

  /** Where `node` is, as a NoValueSite: Go's place of it, and the node as Go prints it. */
  site(node: Node): NoValueSite {
    const { line, column } = location(this.tree.text, node.pos)
    return { template: this.tree.parseName, line, column, expression: quotedNode(node) }
  }

  /** Go's wording of an execution error at `node`: its place, and the node itself. */
  private where(node: Node | undefined, detail: string): { line: number; column: number; message: string } {
    const name = this.tree.name
    if (!node) return { line: 0, column: 0, message: `template: ${name}: ${detail}` }
    const { line, column } = location(this.tree.text, node.pos)
    const at = `${this.tree.parseName}:${line}:${column}`
    return {
      line,
      column,
      message: `template: ${at}: executing ${sprintf('%q', [name])} at <${quotedNode(node)}>: ${detail}`,
    }
  }
}
