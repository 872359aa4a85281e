/**
 * Which branches may render out of order while execution goes on (see exec.ts).
 */
import { elseBranch } from '../parse/nodes'
import type { BranchNode, Node } from '../parse/nodes'

const forkCache = new WeakMap<Node, boolean>()

/**
 * Whether a branch can be rendered out of order: nothing in it assigns (`=`)
 * a variable, and no break or continue in it leaves it.
 */
export function forkable(node: BranchNode): boolean {
  const known = forkCache.get(node)
  if (known !== undefined) return known
  // Each link of an {{else if}} chain is forkable if it and the links after it are: judged from the last
  // back, so that asking of every link of a long chain in turn reads the chain once.
  const links: BranchNode[] = []
  for (let link: BranchNode | undefined = node; link && !forkCache.has(link); link = elseBranch(link)) {
    links.push(link)
  }
  let result = true
  for (let i = links.length - 1; i >= 0; i--) {
    const link = links[i] as BranchNode
    const next = elseBranch(link)
    const rest = next ? (forkCache.get(next) as boolean) : !(link.elseList && assignsOrEscapes(link.elseList, false))
    result = rest && !link.pipe.isAssign && !assignsOrEscapes(link.list, link.type === 'range')
    forkCache.set(link, result)
  }
  return result
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
    case 'range':
      // A chain of {{else if}} in a loop; each link's else list is as much inside a range as the chain.
      for (let link: BranchNode = node; ;) {
        if (link.pipe.isAssign || assignsOrEscapes(link.list, inRange || link.type === 'range')) return true
        const next = elseBranch(link)
        if (!next) return link.elseList !== undefined && assignsOrEscapes(link.elseList, inRange)
        link = next
      }
    case 'template':
      return node.pipe?.isAssign ?? false
    default:
      return false
  }
}
