/**
 * The parse tree, as Go's text/template/parse defines it. Nodes are plain
 * immutable objects tagged by `type`; every node carries `pos`, the UTF-16
 * offset in its template's text where it starts. A parsed tree is shared by
 * every execution, so nothing here is ever mutated after parsing.
 */
import { quote } from '../fmt'
import type { Complex128 } from '../value'
import type { NumberValue } from './literals'

export type Node =
  | ListNode
  | TextNode
  | CommentNode
  | ActionNode
  | BranchNode
  | BreakNode
  | ContinueNode
  | TemplateNode
  | PipeNode
  | CommandNode
  | ArgNode

/** What can stand as an operand of a command. */
export type ArgNode =
  | IdentifierNode
  | VariableNode
  | DotNode
  | NilNode
  | FieldNode
  | ChainNode
  | BoolNode
  | NumberNode
  | StringNode
  | PipeNode

export interface ListNode {
  readonly type: 'list'
  readonly pos: number
  readonly nodes: readonly Node[]
}

export interface TextNode {
  readonly type: 'text'
  readonly pos: number
  readonly text: string
}

export interface CommentNode {
  readonly type: 'comment'
  readonly pos: number
  readonly text: string
}

/** `{{pipeline}}`: a non-control action, such as a field evaluation. */
export interface ActionNode {
  readonly type: 'action'
  readonly pos: number
  readonly line: number
  readonly pipe: PipeNode
}

/** `{{if}}`, `{{range}}` and `{{with}}`: a pipeline, a list, and an optional else list. */
export interface BranchNode {
  readonly type: 'if' | 'range' | 'with'
  readonly pos: number
  readonly line: number
  readonly pipe: PipeNode
  readonly list: ListNode
  readonly elseList: ListNode | undefined
}

export interface BreakNode {
  readonly type: 'break'
  readonly pos: number
  readonly line: number
}

export interface ContinueNode {
  readonly type: 'continue'
  readonly pos: number
  readonly line: number
}

/** `{{template "name" pipeline}}`, and the call half of `{{block}}`. */
export interface TemplateNode {
  readonly type: 'template'
  readonly pos: number
  readonly line: number
  readonly name: string
  readonly pipe: PipeNode | undefined
}

/** `$x, $y := cmd | cmd`: optional declarations, then commands. */
export interface PipeNode {
  readonly type: 'pipe'
  readonly pos: number
  readonly line: number
  /** `=` rather than `:=`. */
  readonly isAssign: boolean
  readonly decl: readonly VariableNode[]
  readonly cmds: readonly CommandNode[]
}

/** Space-separated operands; the first may be a function to call with the rest. */
export interface CommandNode {
  readonly type: 'command'
  readonly pos: number
  readonly args: readonly ArgNode[]
  /**
   * The type of each of args: operands come in a dozen shapes, so that
   * reading their own `type` where each is evaluated is a lookup the engine
   * cannot specialise, where this array is read as one shape.
   */
  readonly kinds: readonly ArgNode['type'][]
}

/** A function name. */
export interface IdentifierNode {
  readonly type: 'identifier'
  readonly pos: number
  readonly ident: string
}

/** `$x` or `$x.field.chain`; ident[0] is the variable's name, with its `$`. */
export interface VariableNode {
  readonly type: 'variable'
  readonly pos: number
  readonly ident: readonly string[]
  /** The name as a number, the same for every `$x` of one parse: execution compares numbers. `$` is DOLLAR. */
  readonly id: number
}

/** The id of `$`, the data an execution or a {{template}} call starts with. */
export const DOLLAR = 0

export interface DotNode {
  readonly type: 'dot'
  readonly pos: number
}

export interface NilNode {
  readonly type: 'nil'
  readonly pos: number
}

/** `.a.b.c`: field names without their dots. */
export interface FieldNode {
  readonly type: 'field'
  readonly pos: number
  readonly ident: readonly string[]
}

/** `(pipeline).a.b`: fields of a term that is not a field or variable. */
export interface ChainNode {
  readonly type: 'chain'
  readonly pos: number
  readonly node: ArgNode
  readonly field: readonly string[]
}

export interface BoolNode {
  readonly type: 'bool'
  readonly pos: number
  readonly value: boolean
}

/**
 * A numeric constant, with every Go type it fits, as Go's NumberNode: `3`
 * is an int (and a float), `3.5` only a float, `'a'` an int (a rune), `1+2i`
 * only a complex, `0i` a complex and also an int and a float.
 */
export interface NumberNode {
  readonly type: 'number'
  readonly pos: number
  readonly text: string
  readonly isInt: boolean
  readonly isUint: boolean
  readonly isFloat: boolean
  readonly isComplex: boolean
  readonly int64: bigint
  readonly uint64: bigint
  readonly float64: number
  readonly complex128: Complex128
  readonly ideal: NumberValue['ideal']
}

export interface StringNode {
  readonly type: 'string'
  readonly pos: number
  /** As written, quotes included. */
  readonly quoted: string
  readonly text: string
}

/**
 * The branch that is the whole of `node`'s else list: what the parser makes
 * of {{else if}} and {{else with}} (`{{if a}}{{else}}{{if b}}{{end}}{{end}}`).
 * Such chains may be thousands of links long, so everything walks them in a
 * loop. A range has none: its else list is not a condition's.
 */
export function elseBranch(node: BranchNode): BranchNode | undefined {
  if (node.type === 'range' || node.elseList?.nodes.length !== 1) return undefined
  const only = node.elseList.nodes[0] as Node
  return only.type === 'if' || only.type === 'with' || only.type === 'range' ? only : undefined
}

/** The most of a node an execution message quotes: a node may hold a megabyte of literal text. */
const QUOTED_NODE_MAX = 256

/** Nodes quoted in messages: an execution may fail at one node many times (a call failing in a loop). */
const quotedNodes = new WeakMap<Node, string>()

/**
 * The node as an execution message quotes it (`at <...>`): its String(),
 * cut at QUOTED_NODE_MAX characters (never inside a surrogate pair) with
 * `...` marking the cut, where Go quotes it whole. Made once a node.
 */
export function quotedNode(n: Node): string {
  let quoted = quotedNodes.get(n)
  if (quoted !== undefined) return quoted
  quoted = nodeString(n)
  if (quoted.length > QUOTED_NODE_MAX) {
    const last = quoted.charCodeAt(QUOTED_NODE_MAX - 1)
    const highSurrogate = last >= 0xd800 && last < 0xdc00
    quoted = `${quoted.slice(0, highSurrogate ? QUOTED_NODE_MAX - 1 : QUOTED_NODE_MAX)}...`
  }
  quotedNodes.set(n, quoted)
  return quoted
}

/**
 * The node as Go's String() writes it: the `<...>` context of execution
 * errors (cut by quotedNode), and the pipelines of parse errors.
 */
export function nodeString(n: Node): string {
  switch (n.type) {
    case 'list':
      return n.nodes.map(nodeString).join('')
    case 'text':
      return n.text
    case 'comment':
      return `{{${n.text}}}`
    case 'action':
      return `{{${nodeString(n.pipe)}}}`
    case 'if':
    case 'range':
    case 'with': {
      // A chain of {{else if}}, link by link: each link is the whole of the else list before it.
      let s = ''
      let ends = 0
      for (let link: BranchNode | undefined = n; link; link = elseBranch(link)) {
        if (ends++ > 0) s += '{{else}}'
        s += `{{${link.type} ${nodeString(link.pipe)}}}${nodeString(link.list)}`
        if (link.elseList && !elseBranch(link)) s += `{{else}}${nodeString(link.elseList)}`
      }
      return s + '{{end}}'.repeat(ends)
    }
    case 'break':
    case 'continue':
      return `{{${n.type}}}`
    case 'template':
      return `{{template ${quote(n.name)}${n.pipe ? ` ${nodeString(n.pipe)}` : ''}}}`
    case 'pipe': {
      const decl = n.decl.length > 0 ? `${n.decl.map(nodeString).join(', ')} := ` : ''
      return decl + n.cmds.map(nodeString).join(' | ')
    }
    case 'command':
      return n.args.map((a) => (a.type === 'pipe' ? `(${nodeString(a)})` : nodeString(a))).join(' ')
    case 'identifier':
      return n.ident
    case 'variable':
      return n.ident.join('.')
    case 'dot':
      return '.'
    case 'nil':
      return 'nil'
    case 'field':
      return n.ident.map((f) => `.${f}`).join('')
    case 'chain': {
      const head = n.node.type === 'pipe' ? `(${nodeString(n.node)})` : nodeString(n.node)
      return head + n.field.map((f) => `.${f}`).join('')
    }
    case 'bool':
      return String(n.value)
    case 'number':
      return n.text
    case 'string':
      return n.quoted
  }
}

/** IsEmptyTree reports whether this tree (node) is empty of everything but space or comments. */
export function isEmptyTree(n: Node): boolean {
  switch (n.type) {
    case 'comment':
      return true
    case 'list':
      return n.nodes.every(isEmptyTree)
    case 'text':
      // bytes.TrimSpace trims unicode.IsSpace, which is not JS's trim(): U+0085 is a space, U+FEFF is not.
      return /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/.test(n.text)
    default:
      return false
  }
}
