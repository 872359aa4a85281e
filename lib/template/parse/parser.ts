/**
 * The parser: Go's text/template/parse, method for method. A recursive
 * descent over the lexer's items with up to three items of lookahead; each
 * method carries the grammar rule it parses. Parsing a text yields its tree
 * and the trees of the `{{define}}`s and `{{block}}`s inside it.
 */
import { isStackOverflow } from '../errors'
import { sprintf } from '../fmt'
import { newDefinition } from './definition'
import { ExpressionParser } from './expressions'
import type { ParseOptions } from './expressions'
import { ItemType } from './lexer'
import type { Item } from './lexer'
import type { ActionNode, BranchNode, ListNode, Node, PipeNode, TemplateNode } from './nodes'
import { isEmptyTree, nodeString } from './nodes'

export { ParseError } from './expressions'
export { isEmptyTree } from './nodes'
export type { ParseOptions } from './expressions'

/** One parsed template: a name, the text it came from, and its root list. */
export interface Tree {
  readonly name: string
  /** The name of the template whose text this was parsed from (a define's is its file's). */
  readonly parseName: string
  readonly text: string
  readonly root: ListNode
  /** The functions it names (builtins included). */
  readonly functions: ReadonlySet<string>
  /** The templates it calls ({{template}} and {{block}}). */
  readonly calls: ReadonlySet<string>
}

/**
 * Parses `text` as template `name`, adding it and every template it defines
 * to `treeSet`. A template that is only white space and comments does not
 * replace an existing one of its name; two non-empty ones are an error.
 */
export function parseInto(treeSet: Map<string, Tree>, name: string, text: string, options: ParseOptions = {}): void {
  new Parser(name, text, treeSet, options).parseTemplate()
}

/**
 * The statements: a template's lists of text and actions, and the control
 * clauses that nest them. Extending ExpressionParser is deliberate, Go's own
 * shape: Go's parse.Tree is one object whose methods parse statements and
 * expressions alike over one lexer and one lookahead; the two halves are
 * split by file, not into two objects that would share that state.
 */
class Parser extends ExpressionParser {
  constructor(
    parseName: string,
    text: string,
    readonly treeSet: Map<string, Tree>,
    options: ParseOptions,
  ) {
    super(parseName, text, options)
  }

  // Trees.

  private add(name: string, root: ListNode): void {
    const existing = this.treeSet.get(name)
    if (existing === undefined || isEmptyTree(existing.root)) {
      const { functions, calls } = this.def
      this.treeSet.set(name, { name, parseName: this.parseName, text: this.text, root, functions, calls })
      return
    }
    if (!isEmptyTree(root)) this.errorf(`template: multiple definition of template ${sprintf('%q', [name])}`)
  }

  /** Parses a nested definition with fresh variables, then returns to the enclosing one. */
  private define<T>(name: string, body: () => T): T {
    const outer = this.def
    this.def = newDefinition(name)
    try {
      return body()
    } finally {
      this.def = outer
    }
  }

  // Grammar.

  /**
   * The top-level parser, essentially itemList except that it also parses
   * {{define}} actions. It runs to EOF.
   */
  parseTemplate(): void {
    const root = this.newList(this.peek().pos)
    try {
      while (this.peek().type !== ItemType.EOF) {
        if (this.peek().type === ItemType.LeftDelim) {
          const delim = this.next()
          if (this.nextNonSpace().type === ItemType.Define) {
            this.define('definition', () => this.parseDefinition())
            continue
          }
          this.backup2(delim)
        }
        const n = this.textOrAction()
        if (isControl(n)) this.errorf(`unexpected ${controlString(n)}`)
        else root.nodes.push(n)
      }
    } catch (e) {
      // Whatever the reason, a template that cannot be parsed is a parse error.
      if (e instanceof RangeError) this.errorf(isStackOverflow(e) ? 'nested too deeply to parse' : 'too large to parse')
      throw e
    }
    this.add(this.parseName, root)
  }

  /**
   * parseDefinition parses a {{define}} ... {{end}} template definition and
   * installs it. The "define" keyword has already been scanned.
   */
  private parseDefinition(): void {
    const context = 'define clause'
    const name = this.unquote(this.expectOneOf(ItemType.String, ItemType.RawString, context))
    this.def.name = name
    this.expect(ItemType.RightDelim, context)
    const [root, end] = this.itemList()
    if (end.type !== 'end') this.errorf(`unexpected ${controlString(end)} in ${context}`)
    this.add(name, root)
  }

  /**
   * itemList:
   *	textOrAction*
   * Terminates at {{end}} or {{else}}, returned separately.
   */
  private itemList(): [MutableList, Control] {
    const list = this.newList(this.peekNonSpace().pos)
    while (this.peekNonSpace().type !== ItemType.EOF) {
      const n = this.textOrAction()
      if (isControl(n)) return [list, n]
      list.nodes.push(n)
    }
    this.errorf('unexpected EOF')
  }

  /**
   * textOrAction:
   *	text | comment | action
   */
  private textOrAction(): Node | Control {
    const token = this.nextNonSpace()
    switch (token.type) {
      case ItemType.Text:
        return { type: 'text', pos: token.pos, text: token.val }
      case ItemType.LeftDelim:
        this.actionLine = token.line
        try {
          return this.action()
        } finally {
          this.actionLine = 0
        }
      case ItemType.Comment:
        return { type: 'comment', pos: token.pos, text: token.val }
      default:
        this.unexpected(token, 'input')
    }
  }

  /**
   * Action:
   *	control
   *	command ("|" command)*
   * Left delim is past. Now get actions. First word could be a keyword such as range.
   */
  private action(): Node | Control {
    const token = this.nextNonSpace()
    switch (token.type) {
      case ItemType.Block:
        return this.blockControl()
      case ItemType.Break:
        return this.breakControl(token)
      case ItemType.Continue:
        return this.continueControl(token)
      case ItemType.Else:
        return this.elseControl()
      case ItemType.End:
        return this.endControl()
      case ItemType.If:
        return this.ifControl()
      case ItemType.Range:
        return this.rangeControl()
      case ItemType.Template:
        return this.templateControl()
      case ItemType.With:
        return this.withControl()
    }
    this.backup()
    const start = this.peek()
    // Do not pop variables; they persist until "end".
    const action: ActionNode = {
      type: 'action',
      pos: start.pos,
      line: start.line,
      pipe: this.pipeline('command', ItemType.RightDelim),
    }
    return action
  }

  /**
   * Break:
   *	{{break}}
   * Break keyword is past.
   */
  private breakControl(keyword: Item): Node {
    const token = this.nextNonSpace()
    if (token.type !== ItemType.RightDelim) this.unexpected(token, '{{break}}')
    if (this.def.rangeDepth === 0) this.errorf('{{break}} outside {{range}}')
    return { type: 'break', pos: keyword.pos, line: keyword.line }
  }

  /**
   * Continue:
   *	{{continue}}
   * Continue keyword is past.
   */
  private continueControl(keyword: Item): Node {
    const token = this.nextNonSpace()
    if (token.type !== ItemType.RightDelim) this.unexpected(token, '{{continue}}')
    if (this.def.rangeDepth === 0) this.errorf('{{continue}} outside {{range}}')
    return { type: 'continue', pos: keyword.pos, line: keyword.line }
  }

  private parseControl(allowElseIf: boolean, context: 'if' | 'range' | 'with'): BranchNode {
    return this.nested(() => this.parseControlBody(allowElseIf, context))
  }

  private parseControlBody(allowElseIf: boolean, context: 'if' | 'range' | 'with'): BranchNode {
    const vars = this.def.vars.mark
    try {
      // Special cases for "else if" and "else with": parse
      //	{{if a}}_{{else if b}}_{{end}}
      // as
      //	{{if a}}_{{else}}{{if b}}_{{end}}{{end}}.
      // The links of such a chain share one {{end}}, and Go sets no limit to their number: they are parsed
      // in a loop, as one level of nesting, each link's variables in scope until that {{end}}.
      const links: { pipe: PipeNode; list: ListNode; elsePos: number }[] = []
      for (;;) {
        const pipe = this.pipeline(context, ItemType.RightDelim)
        if (context === 'range') this.def.rangeDepth++
        const [list, first] = this.itemList()
        let next = first
        if (context === 'range') this.def.rangeDepth--
        let elseList: MutableList | undefined
        if (next.type === 'else') {
          const keyword = this.peek().type
          if ((allowElseIf && keyword === ItemType.If) || (context === 'with' && keyword === ItemType.With)) {
            this.next()
            links.push({ pipe, list, elsePos: next.pos })
            continue
          }
          ;[elseList, next] = this.itemList()
          if (next.type !== 'end') this.errorf(`expected end; found ${controlString(next)}`)
        }
        let node: BranchNode = { type: context, pos: pipe.pos, line: pipe.line, pipe, list, elseList }
        for (let link = links.pop(); link; link = links.pop()) {
          const chained = this.newList(link.elsePos)
          chained.nodes.push(node)
          node = {
            type: context,
            pos: link.pipe.pos,
            line: link.pipe.line,
            pipe: link.pipe,
            list: link.list,
            elseList: chained,
          }
        }
        return node
      }
    } finally {
      this.def.vars.pop(vars)
    }
  }

  /**
   * If:
   *	{{if pipeline}} itemList {{end}}
   *	{{if pipeline}} itemList {{else}} itemList {{end}}
   * If keyword is past.
   */
  private ifControl(): BranchNode {
    return this.parseControl(true, 'if')
  }

  /**
   * Range:
   *	{{range pipeline}} itemList {{end}}
   *	{{range pipeline}} itemList {{else}} itemList {{end}}
   * Range keyword is past.
   */
  private rangeControl(): BranchNode {
    return this.parseControl(false, 'range')
  }

  /**
   * With:
   *	{{with pipeline}} itemList {{end}}
   *	{{with pipeline}} itemList {{else}} itemList {{end}}
   *	{{with pipeline}} itemList {{else with pipeline}} itemList {{end}}
   * With keyword is past.
   */
  private withControl(): BranchNode {
    return this.parseControl(false, 'with')
  }

  /**
   * End:
   *	{{end}}
   * End keyword is past.
   */
  private endControl(): Control {
    const token = this.expect(ItemType.RightDelim, 'end')
    return { type: 'end', pos: token.pos }
  }

  /**
   * Else:
   *	{{else}}
   * Else keyword is past.
   */
  private elseControl(): Control {
    const peek = this.peekNonSpace()
    // "{{else if ..." and "{{else with ...": in effect {{else}}{{if ...; the control keyword stays pending.
    if (peek.type === ItemType.If || peek.type === ItemType.With) return { type: 'else', pos: peek.pos }
    const token = this.expect(ItemType.RightDelim, 'else')
    return { type: 'else', pos: token.pos }
  }

  /**
   * Block:
   *	{{block stringValue pipeline}}
   * Block keyword is past. The name must be something that can evaluate to a
   * string. The pipeline is mandatory.
   */
  private blockControl(): TemplateNode {
    const context = 'block clause'
    const token = this.nextNonSpace()
    const name = this.parseTemplateName(token, context)
    const pipe = this.pipeline(context, ItemType.RightDelim)
    this.def.calls.add(name)
    // Go reports a wrong end of the body from the enclosing tree, whose last token is the block's right delim.
    const last = this.token[0]
    this.nested(() =>
      this.define(name, () => {
        const [root, end] = this.itemList()
        if (end.type !== 'end') this.errorAt(last, `unexpected ${controlString(end)} in ${context}`)
        this.add(name, root)
      }),
    )
    return { type: 'template', pos: token.pos, line: token.line, name, pipe }
  }

  /**
   * Template:
   *	{{template stringValue pipeline}}
   * Template keyword is past. The name must be something that can evaluate
   * to a string.
   */
  private templateControl(): TemplateNode {
    const context = 'template clause'
    const token = this.nextNonSpace()
    const name = this.parseTemplateName(token, context)
    this.def.calls.add(name)
    let pipe: PipeNode | undefined
    if (this.nextNonSpace().type !== ItemType.RightDelim) {
      this.backup()
      // Do not pop variables; they persist until "end".
      pipe = this.pipeline(context, ItemType.RightDelim)
    }
    return { type: 'template', pos: token.pos, line: token.line, name, pipe }
  }

  private parseTemplateName(token: Item, context: string): string {
    if (token.type !== ItemType.String && token.type !== ItemType.RawString) this.unexpected(token, context)
    return this.unquote(token)
  }

  private newList(pos: number): MutableList {
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
