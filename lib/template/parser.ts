/**
 * The parser: Go's text/template/parse, method for method. A recursive
 * descent over the lexer's items with up to three items of lookahead; each
 * method carries the grammar rule it parses. Parsing a text yields its tree
 * and the trees of the `{{define}}`s and `{{block}}`s inside it.
 */
import { sprintf } from './fmt'
import { ItemType, Lexer, isKeyword } from './lexer'
import type { Item } from './lexer'
import { SyntaxError as LiteralError, parseNumber, unquote } from './literals'
import type {
  ActionNode,
  ArgNode,
  BranchNode,
  CommandNode,
  ListNode,
  Node,
  PipeNode,
  TemplateNode,
  VariableNode,
} from './nodes'
import { nodeString } from './nodes'

/** One parsed template: a name, the text it came from, and its root list. */
export interface Tree {
  readonly name: string
  /** The name of the template whose text this was parsed from (a define's is its file's). */
  readonly parseName: string
  readonly text: string
  readonly root: ListNode
}

export interface ParseOptions {
  leftDelim?: string
  rightDelim?: string
  /** Whether a function name exists; undefined skips the check until execution (Go's SkipFuncCheck). */
  hasFunction?: (name: string) => boolean
}

/** A parse failure, worded as Go words it: `template: NAME:LINE: message`. */
export class ParseError extends Error {
  override readonly name = 'ParseError'
  constructor(
    readonly templateName: string,
    readonly line: number,
    readonly detail: string,
    /** Where on its line the offending token starts, from 1; 0 when unknown. Go's message names only the line. */
    readonly column = 0,
  ) {
    super(`template: ${templateName}:${line}: ${detail}`)
  }
}

/** The 1-based column of `pos` in `text`, in characters (UTF-16 code units). */
function columnAt(text: string, pos: number): number {
  return pos - (text.lastIndexOf('\n', pos - 1) + 1) + 1
}

/**
 * Parses `text` as template `name`, adding it and every template it defines
 * to `treeSet`. A template that is only white space and comments does not
 * replace an existing one of its name; two non-empty ones are an error.
 */
export function parseInto(treeSet: Map<string, Tree>, name: string, text: string, options: ParseOptions = {}): void {
  new Parser(name, text, treeSet, options).parseTemplate()
}

/** Per-template parsing state: the name being defined, the variables in scope, range nesting. */
interface Definition {
  name: string
  vars: string[]
  rangeDepth: number
}

class Parser {
  readonly #lex: Lexer
  /** Lookahead: token[0] is the latest item read; peekCount items are pushed back. */
  readonly #token: Item[] = []
  #peekCount = 0
  #def: Definition
  #actionLine = 0

  constructor(
    readonly parseName: string,
    readonly text: string,
    readonly treeSet: Map<string, Tree>,
    readonly options: ParseOptions,
  ) {
    const has = options.hasFunction
    this.#lex = new Lexer(parseName, text, {
      leftDelim: options.leftDelim,
      rightDelim: options.rightDelim,
      // `break` and `continue` are keywords unless functions of those names exist.
      breakOK: !has?.('break'),
      continueOK: !has?.('continue'),
    })
    this.#def = { name: parseName, vars: ['$'], rangeDepth: 0 }
  }

  // Items.

  /** next returns the next token. */
  #next(): Item {
    if (this.#peekCount > 0) this.#peekCount--
    else this.#token[0] = this.#lex.nextItem()
    return this.#token[this.#peekCount] as Item
  }

  /** backup backs the input stream up one token. */
  #backup(): void {
    this.#peekCount++
  }

  /** backup2 backs the input stream up two tokens. The zeroth token is already there. */
  #backup2(t1: Item): void {
    this.#token[1] = t1
    this.#peekCount = 2
  }

  /** backup3 backs the input stream up three tokens. The zeroth token is already there. */
  #backup3(t2: Item, t1: Item): void {
    this.#token[1] = t1
    this.#token[2] = t2
    this.#peekCount = 3
  }

  /** peek returns but does not consume the next token. */
  #peek(): Item {
    if (this.#peekCount > 0) return this.#token[this.#peekCount - 1] as Item
    this.#peekCount = 1
    this.#token[0] = this.#lex.nextItem()
    return this.#token[0]
  }

  #nextNonSpace(): Item {
    let token: Item
    do token = this.#next()
    while (token.type === ItemType.Space)
    return token
  }

  #peekNonSpace(): Item {
    const token = this.#nextNonSpace()
    this.#backup()
    return token
  }

  // Errors.

  #errorf(message: string): never {
    const token = this.#token[0]
    throw new ParseError(this.parseName, token?.line ?? 0, message, token ? columnAt(this.text, token.pos) : 0)
  }

  #expect(expected: ItemType, context: string): Item {
    const token = this.#nextNonSpace()
    if (token.type !== expected) this.#unexpected(token, context)
    return token
  }

  #expectOneOf(expected1: ItemType, expected2: ItemType, context: string): Item {
    const token = this.#nextNonSpace()
    if (token.type !== expected1 && token.type !== expected2) this.#unexpected(token, context)
    return token
  }

  #unexpected(token: Item, context: string): never {
    if (token.type === ItemType.Error) {
      let extra = ''
      if (this.#actionLine !== 0 && this.#actionLine !== token.line) {
        extra = ` in action started at ${this.parseName}:${this.#actionLine}`
        // Avoid "action in action".
        if (token.val.endsWith(' action')) extra = extra.slice(' in action'.length)
      }
      this.#errorf(`${token.val}${extra}`)
    }
    this.#errorf(`unexpected ${itemString(token)} in ${context}`)
  }

  /** A string or raw-string literal's value, with Go's "invalid syntax" on a bad one. */
  #unquote(token: Item): string {
    try {
      return unquote(token.val)
    } catch (e) {
      this.#errorf(e instanceof LiteralError ? e.message : String(e))
    }
  }

  // Trees.

  #add(name: string, root: ListNode): void {
    const existing = this.treeSet.get(name)
    if (existing === undefined || isEmptyTree(existing.root)) {
      this.treeSet.set(name, { name, parseName: this.parseName, text: this.text, root })
      return
    }
    if (!isEmptyTree(root)) this.#errorf(`template: multiple definition of template ${sprintf('%q', [name])}`)
  }

  /** Parses a nested definition with fresh variables, then returns to the enclosing one. */
  #define<T>(name: string, body: () => T): T {
    const outer = this.#def
    this.#def = { name, vars: ['$'], rangeDepth: 0 }
    try {
      return body()
    } finally {
      this.#def = outer
    }
  }

  // Grammar.

  /**
   * The top-level parser, essentially itemList except that it also parses
   * {{define}} actions. It runs to EOF.
   */
  parseTemplate(): void {
    const root = this.#newList(this.#peek().pos)
    while (this.#peek().type !== ItemType.EOF) {
      if (this.#peek().type === ItemType.LeftDelim) {
        const delim = this.#next()
        if (this.#nextNonSpace().type === ItemType.Define) {
          this.#define('definition', () => this.#parseDefinition())
          continue
        }
        this.#backup2(delim)
      }
      const n = this.#textOrAction()
      if (isControl(n)) this.#errorf(`unexpected ${controlString(n)}`)
      else root.nodes.push(n)
    }
    this.#add(this.parseName, root)
  }

  /**
   * parseDefinition parses a {{define}} ... {{end}} template definition and
   * installs it. The "define" keyword has already been scanned.
   */
  #parseDefinition(): void {
    const context = 'define clause'
    const name = this.#unquote(this.#expectOneOf(ItemType.String, ItemType.RawString, context))
    this.#def.name = name
    this.#expect(ItemType.RightDelim, context)
    const [root, end] = this.#itemList()
    if (end.type !== 'end') this.#errorf(`unexpected ${controlString(end)} in ${context}`)
    this.#add(name, root)
  }

  /**
   * itemList:
   *	textOrAction*
   * Terminates at {{end}} or {{else}}, returned separately.
   */
  #itemList(): [MutableList, Control] {
    const list = this.#newList(this.#peekNonSpace().pos)
    while (this.#peekNonSpace().type !== ItemType.EOF) {
      const n = this.#textOrAction()
      if (isControl(n)) return [list, n]
      list.nodes.push(n)
    }
    this.#errorf('unexpected EOF')
  }

  /**
   * textOrAction:
   *	text | comment | action
   */
  #textOrAction(): Node | Control {
    const token = this.#nextNonSpace()
    switch (token.type) {
      case ItemType.Text:
        return { type: 'text', pos: token.pos, text: token.val }
      case ItemType.LeftDelim:
        this.#actionLine = token.line
        try {
          return this.#action()
        } finally {
          this.#actionLine = 0
        }
      case ItemType.Comment:
        return { type: 'comment', pos: token.pos, text: token.val }
      default:
        this.#unexpected(token, 'input')
    }
  }

  /**
   * Action:
   *	control
   *	command ("|" command)*
   * Left delim is past. Now get actions. First word could be a keyword such as range.
   */
  #action(): Node | Control {
    const token = this.#nextNonSpace()
    switch (token.type) {
      case ItemType.Block:
        return this.#blockControl()
      case ItemType.Break:
        return this.#breakControl(token)
      case ItemType.Continue:
        return this.#continueControl(token)
      case ItemType.Else:
        return this.#elseControl()
      case ItemType.End:
        return this.#endControl()
      case ItemType.If:
        return this.#ifControl()
      case ItemType.Range:
        return this.#rangeControl()
      case ItemType.Template:
        return this.#templateControl()
      case ItemType.With:
        return this.#withControl()
    }
    this.#backup()
    const start = this.#peek()
    // Do not pop variables; they persist until "end".
    const action: ActionNode = {
      type: 'action',
      pos: start.pos,
      line: start.line,
      pipe: this.#pipeline('command', ItemType.RightDelim),
    }
    return action
  }

  /**
   * Break:
   *	{{break}}
   * Break keyword is past.
   */
  #breakControl(keyword: Item): Node {
    const token = this.#nextNonSpace()
    if (token.type !== ItemType.RightDelim) this.#unexpected(token, '{{break}}')
    if (this.#def.rangeDepth === 0) this.#errorf('{{break}} outside {{range}}')
    return { type: 'break', pos: keyword.pos, line: keyword.line }
  }

  /**
   * Continue:
   *	{{continue}}
   * Continue keyword is past.
   */
  #continueControl(keyword: Item): Node {
    const token = this.#nextNonSpace()
    if (token.type !== ItemType.RightDelim) this.#unexpected(token, '{{continue}}')
    if (this.#def.rangeDepth === 0) this.#errorf('{{continue}} outside {{range}}')
    return { type: 'continue', pos: keyword.pos, line: keyword.line }
  }

  /**
   * Pipeline:
   *	declarations? command ('|' command)*
   */
  #pipeline(context: string, end: ItemType): PipeNode {
    const start = this.#peekNonSpace()
    const decl: VariableNode[] = []
    const cmds: CommandNode[] = []
    let isAssign = false
    // Are there declarations or assignments?
    for (;;) {
      const v = this.#peekNonSpace()
      if (v.type !== ItemType.Variable) break
      this.#next()
      // Since space is a token, we need 3-token look-ahead here in the worst case: in "$x foo" we
      // need to read "foo" (as opposed to ":=") to know that $x is an argument variable rather than a
      // declaration. So remember the token adjacent to the variable so we can push it back if necessary.
      const tokenAfterVariable = this.#peek()
      const next = this.#peekNonSpace()
      if (next.type === ItemType.Assign || next.type === ItemType.Declare) {
        isAssign = next.type === ItemType.Assign
        this.#nextNonSpace()
        decl.push(this.#declare(v))
      } else if (next.type === ItemType.Char && next.val === ',') {
        this.#nextNonSpace()
        decl.push(this.#declare(v))
        if (context === 'range' && decl.length < 2) {
          const after = this.#peekNonSpace().type
          // A second initialized variable in a range pipeline.
          if (after === ItemType.Variable || after === ItemType.RightDelim || after === ItemType.RightParen) continue
          this.#errorf('range can only initialize variables')
        }
        this.#errorf(`too many declarations in ${context}`)
      } else if (tokenAfterVariable.type === ItemType.Space) {
        this.#backup3(v, tokenAfterVariable)
      } else {
        this.#backup2(v)
      }
      break
    }
    for (;;) {
      const token = this.#nextNonSpace()
      if (token.type === end) {
        // At this point, the pipeline is complete.
        const pipe: PipeNode = { type: 'pipe', pos: start.pos, line: start.line, isAssign, decl, cmds }
        this.#checkPipeline(pipe, context)
        return pipe
      }
      switch (token.type) {
        case ItemType.Bool:
        case ItemType.CharConstant:
        case ItemType.Dot:
        case ItemType.Field:
        case ItemType.Identifier:
        case ItemType.Number:
        case ItemType.Nil:
        case ItemType.RawString:
        case ItemType.String:
        case ItemType.Variable:
        case ItemType.LeftParen:
          this.#backup()
          cmds.push(this.#command())
          break
        default:
          this.#unexpected(token, context)
      }
    }
  }

  #declare(v: Item): VariableNode {
    this.#def.vars.push(v.val)
    return { type: 'variable', pos: v.pos, ident: v.val.split('.') }
  }

  #checkPipeline(pipe: PipeNode, context: string): void {
    // Reject empty pipelines.
    if (pipe.cmds.length === 0) this.#errorf(`missing value for ${context}`)
    // Only the first command of a pipeline can start with a non executable operand.
    pipe.cmds.slice(1).forEach((c, i) => {
      const first = c.args[0]?.type
      if (first === 'bool' || first === 'dot' || first === 'nil' || first === 'number' || first === 'string') {
        // With A|B|C, pipeline stage 2 is B.
        this.#errorf(`non executable command in pipeline stage ${i + 2}`)
      }
    })
  }

  #parseControl(allowElseIf: boolean, context: 'if' | 'range' | 'with'): BranchNode {
    const vars = this.#def.vars.length
    try {
      const pipe = this.#pipeline(context, ItemType.RightDelim)
      if (context === 'range') this.#def.rangeDepth++
      const [list, first] = this.#itemList()
      let next = first
      if (context === 'range') this.#def.rangeDepth--
      let elseList: MutableList | undefined
      if (next.type === 'else') {
        // Special cases for "else if" and "else with": parse
        //	{{if a}}_{{else if b}}_{{end}}
        // as
        //	{{if a}}_{{else}}{{if b}}_{{end}}{{end}}.
        // The nested control stops at its {{end}}; the enclosing {{end}} is assumed.
        const chained = allowElseIf && this.#peek().type === ItemType.If
        const chainedWith = context === 'with' && this.#peek().type === ItemType.With
        if (chained || chainedWith) {
          this.#next()
          elseList = this.#newList(next.pos)
          elseList.nodes.push(chained ? this.#ifControl() : this.#withControl())
        } else {
          ;[elseList, next] = this.#itemList()
          if (next.type !== 'end') this.#errorf(`expected end; found ${controlString(next)}`)
        }
      }
      return { type: context, pos: pipe.pos, line: pipe.line, pipe, list, elseList }
    } finally {
      this.#def.vars.length = vars
    }
  }

  /**
   * If:
   *	{{if pipeline}} itemList {{end}}
   *	{{if pipeline}} itemList {{else}} itemList {{end}}
   * If keyword is past.
   */
  #ifControl(): BranchNode {
    return this.#parseControl(true, 'if')
  }

  /**
   * Range:
   *	{{range pipeline}} itemList {{end}}
   *	{{range pipeline}} itemList {{else}} itemList {{end}}
   * Range keyword is past.
   */
  #rangeControl(): BranchNode {
    return this.#parseControl(false, 'range')
  }

  /**
   * With:
   *	{{with pipeline}} itemList {{end}}
   *	{{with pipeline}} itemList {{else}} itemList {{end}}
   *	{{with pipeline}} itemList {{else with pipeline}} itemList {{end}}
   * With keyword is past.
   */
  #withControl(): BranchNode {
    return this.#parseControl(false, 'with')
  }

  /**
   * End:
   *	{{end}}
   * End keyword is past.
   */
  #endControl(): Control {
    const token = this.#expect(ItemType.RightDelim, 'end')
    return { type: 'end', pos: token.pos }
  }

  /**
   * Else:
   *	{{else}}
   * Else keyword is past.
   */
  #elseControl(): Control {
    const peek = this.#peekNonSpace()
    // "{{else if ..." and "{{else with ...": in effect {{else}}{{if ...; the control keyword stays pending.
    if (peek.type === ItemType.If || peek.type === ItemType.With) return { type: 'else', pos: peek.pos }
    const token = this.#expect(ItemType.RightDelim, 'else')
    return { type: 'else', pos: token.pos }
  }

  /**
   * Block:
   *	{{block stringValue pipeline}}
   * Block keyword is past. The name must be something that can evaluate to a
   * string. The pipeline is mandatory.
   */
  #blockControl(): TemplateNode {
    const context = 'block clause'
    const token = this.#nextNonSpace()
    const name = this.#parseTemplateName(token, context)
    const pipe = this.#pipeline(context, ItemType.RightDelim)
    // Go reports a wrong end of the body from the enclosing tree, whose last token is the block's right delim.
    const last = this.#token[0]
    this.#define(name, () => {
      const [root, end] = this.#itemList()
      if (end.type !== 'end') {
        const column = last ? columnAt(this.text, last.pos) : 0
        throw new ParseError(this.parseName, last?.line ?? 0, `unexpected ${controlString(end)} in ${context}`, column)
      }
      this.#add(name, root)
    })
    return { type: 'template', pos: token.pos, line: token.line, name, pipe }
  }

  /**
   * Template:
   *	{{template stringValue pipeline}}
   * Template keyword is past. The name must be something that can evaluate
   * to a string.
   */
  #templateControl(): TemplateNode {
    const context = 'template clause'
    const token = this.#nextNonSpace()
    const name = this.#parseTemplateName(token, context)
    let pipe: PipeNode | undefined
    if (this.#nextNonSpace().type !== ItemType.RightDelim) {
      this.#backup()
      // Do not pop variables; they persist until "end".
      pipe = this.#pipeline(context, ItemType.RightDelim)
    }
    return { type: 'template', pos: token.pos, line: token.line, name, pipe }
  }

  #parseTemplateName(token: Item, context: string): string {
    if (token.type !== ItemType.String && token.type !== ItemType.RawString) this.#unexpected(token, context)
    return this.#unquote(token)
  }

  /**
   * command:
   *	operand (space operand)*
   * Space-separated arguments up to a pipeline character or right delimiter.
   * We consume the pipe character but leave the right delim to terminate the action.
   */
  #command(): CommandNode {
    const args: ArgNode[] = []
    const cmd: CommandNode = { type: 'command', pos: this.#peekNonSpace().pos, args }
    for (;;) {
      this.#peekNonSpace() // Skip leading spaces.
      const operand = this.#operand()
      if (operand) args.push(operand)
      const token = this.#next()
      if (token.type === ItemType.Space) continue
      if (token.type === ItemType.RightDelim || token.type === ItemType.RightParen) this.#backup()
      else if (token.type !== ItemType.Pipe) this.#unexpected(token, 'operand')
      break
    }
    if (args.length === 0) this.#errorf('empty command')
    return cmd
  }

  /**
   * operand:
   *	term .Field*
   * An operand is a space-separated component of a command, a term possibly
   * followed by field accesses. Undefined means the next item is not an operand.
   */
  #operand(): ArgNode | undefined {
    const node = this.#term()
    if (!node) return undefined
    if (this.#peek().type !== ItemType.Field) return node
    const pos = this.#peek().pos
    const field: string[] = []
    while (this.#peek().type === ItemType.Field) field.push(this.#next().val.slice(1))
    // As Go: more fields on a field or variable extend it; on a literal they are an error.
    switch (node.type) {
      case 'field':
        return { type: 'field', pos, ident: [...node.ident, ...field] }
      case 'variable':
        return { type: 'variable', pos, ident: [...node.ident, ...field] }
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        this.#errorf(`unexpected . after term ${sprintf('%q', [nodeString(node)])}`)
      default:
        return { type: 'chain', pos, node, field }
    }
  }

  /**
   * term:
   *	literal (number, string, nil, boolean)
   *	function (identifier)
   *	.
   *	.Field
   *	$
   *	'(' pipeline ')'
   * A term is a simple "expression". Undefined means the next item is not a term.
   */
  #term(): ArgNode | undefined {
    const token = this.#nextNonSpace()
    switch (token.type) {
      case ItemType.Identifier: {
        const has = this.options.hasFunction
        if (has && !has(token.val)) this.#errorf(`function ${sprintf('%q', [token.val])} not defined`)
        return { type: 'identifier', pos: token.pos, ident: token.val }
      }
      case ItemType.Dot:
        return { type: 'dot', pos: token.pos }
      case ItemType.Nil:
        return { type: 'nil', pos: token.pos }
      case ItemType.Variable:
        return this.#useVar(token)
      case ItemType.Field:
        return { type: 'field', pos: token.pos, ident: [token.val.slice(1)] }
      case ItemType.Bool:
        return { type: 'bool', pos: token.pos, value: token.val === 'true' }
      case ItemType.CharConstant:
      case ItemType.Number:
        try {
          return {
            type: 'number',
            pos: token.pos,
            text: token.val,
            ...parseNumber(token.val, token.type === ItemType.CharConstant),
          }
        } catch (e) {
          this.#errorf(e instanceof Error ? e.message : String(e))
        }
      case ItemType.LeftParen:
        return this.#pipeline('parenthesized pipeline', ItemType.RightParen)
      case ItemType.String:
      case ItemType.RawString:
        return { type: 'string', pos: token.pos, quoted: token.val, text: this.#unquote(token) }
    }
    this.#backup()
    return undefined
  }

  /** useVar returns a node for a variable reference. It errors if the variable is not defined. */
  #useVar(token: Item): VariableNode {
    const ident = token.val.split('.')
    if (!this.#def.vars.includes(ident[0] as string)) this.#errorf(`undefined variable ${sprintf('%q', [ident[0]])}`)
    return { type: 'variable', pos: token.pos, ident }
  }

  #newList(pos: number): MutableList {
    return { type: 'list', pos, nodes: [] }
  }
}

/** A list still being filled; frozen by type once returned as a ListNode. */
interface MutableList extends ListNode {
  readonly nodes: Node[]
}

/** {{end}} and {{else}}: they end lists and never enter the tree. */
interface Control {
  readonly type: 'end' | 'else'
  readonly pos: number
}

function isControl(n: Node | Control): n is Control {
  return n.type === 'end' || n.type === 'else'
}

function controlString(c: Node | Control): string {
  return isControl(c) ? `{{${c.type}}}` : nodeString(c)
}

/** How Go prints an item in "unexpected ..." messages. */
function itemString(item: Item): string {
  if (item.type === ItemType.EOF) return 'EOF'
  if (item.type === ItemType.Error) return item.val
  if (isKeyword(item.type)) return `<${item.val}>`
  if (utf8.encode(item.val).length > 10) return sprintf('%.10q...', [item.val])
  return sprintf('%q', [item.val])
}

const utf8 = new TextEncoder()

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
