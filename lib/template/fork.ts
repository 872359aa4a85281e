/**
 * Which branches may render out of order while execution goes on (see exec.ts).
 */
import type { BranchNode, Node } from './nodes'

const forkCache = new WeakMap<Node, boolean>()

/**
 * Whether a branch can be rendered out of order: nothing in it assigns (`=`)
 * a variable, and no break or continue in it leaves it.
 */
export function forkable(node: BranchNode): boolean {
  let known = forkCache.get(node)
  if (known === undefined) {
    known = !assignsOrEscapes(node, false)
    forkCache.set(node, known)
  }
  return known
}

function assignsOrEscapes(node: Node, inRange: boolean): boolean {
  switch (node.type) {
    case 'break':
    case 'continue':
      return !inRange
    case 'action':
      return node.pipe.isAssign
    case 'list':
      return node.nodes.some((n) => assignsOrEscapes(n, inRange))
    case 'if':
    case 'with':
    case 'range': {
      const nested = inRange || node.type === 'range'
      return (
        node.pipe.isAssign ||
        assignsOrEscapes(node.list, nested) ||
        (node.elseList !== undefined && assignsOrEscapes(node.elseList, inRange))
      )
    }
    case 'template':
      return node.pipe?.isAssign ?? false
    default:
      return false
  }
}
