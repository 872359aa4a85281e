/**
 * The expression half of the parser (Go's parse.go): the token stream with
 * its lookahead, errors worded as Go words them, and the grammar below an
 * action: pipelines, commands, operands and terms. parser.ts builds the
 * statements (lists, actions, control clauses) on top of it.
 */
import { location } from './locator'
import { sprintf } from '../fmt'
import { utf8 } from '../fmt/utf8'
import { ItemType, Lexer, isKeyword } from './lexer'
import type { Item } from './lexer'
import { SyntaxError as LiteralError, parseNumber, unquote } from './literals'
import { quoteShort } from './runes'
import { VariableIds, newDefinition } from './definition'
import type { Definition } from './definition'
import { nodeString } from './nodes'
import type { ArgNode, CommandNode, PipeNode, VariableNode } from './nodes'

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
    /**
     * Where on its line the offending token starts, as Go counts an execution
     * error's column (UTF-8 bytes from the line's start, from 0), so that a
     * parse error and an execution error at one place give one column. Go's
     * parse messages name only the line.
     */
    readonly column = 0,
  ) {
    super(`template: ${templateName}:${line}: ${detail}`)
  }
}

/**
 * Levels of {{if}}, {{range}}, {{with}}, {{block}} and parentheses inside
 * one another, at most. Parsing, analysis and execution recurse once a
 * level, and a JS stack is shallow (workerd's more than Node's): deeper
 * nesting is a parse error rather than a stack overflow. Go has no such
 * limit on control structures; later versions allow 10,000 levels of parentheses.
 */
export const MAX_NESTING = 200

export abstract class ExpressionParser {
  private readonly lex: Lexer
  /** Lookahead: token[0] is the latest item read; peekCount items are pushed back. */
  protected readonly token: Item[] = []
  private peekCount = 0
  protected def: Definition
  protected actionLine = 0
  /** Control structures and parentheses open around the current token. */
  private nesting = 0
  private readonly ids = new VariableIds()

  constructor(
    readonly parseName: string,
    readonly text: string,
    readonly options: ParseOptions,
  ) {
    const has = options.hasFunction
    this.lex = new Lexer(parseName, text, {
      leftDelim: options.leftDelim,
      rightDelim: options.rightDelim,
      // `break` and `continue` are keywords unless functions of those names exist.
      breakOK: !has?.('break'),
      continueOK: !has?.('continue'),
    })
    this.def = newDefinition(parseName)
  }

  // Items.

  /** next returns the next token. */
  protected next(): Item {
    if (this.peekCount > 0) this.peekCount--
    else this.token[0] = this.lex.nextItem()
    return this.token[this.peekCount] as Item
  }

  /** backup backs the input stream up one token. */
  protected backup(): void {
    this.peekCount++
  }

  /** backup2 backs the input stream up two tokens. The zeroth token is already there. */
  protected backup2(t1: Item): void {
    this.token[1] = t1
    this.peekCount = 2
  }

  /** backup3 backs the input stream up three tokens. The zeroth token is already there. */
  private backup3(t2: Item, t1: Item): void {
    this.token[1] = t1
    this.token[2] = t2
    this.peekCount = 3
  }

  /** peek returns but does not consume the next token. */
  protected peek(): Item {
    if (this.peekCount > 0) return this.token[this.peekCount - 1] as Item
    this.peekCount = 1
    this.token[0] = this.lex.nextItem()
    return this.token[0]
  }

  protected nextNonSpace(): Item {
    let token: Item
    do token = this.next()
    while (token.type === ItemType.Space)
    return token
  }

  protected peekNonSpace(): Item {
    const token = this.nextNonSpace()
    this.backup()
    return token
  }

  // Errors.

  protected errorf(message: string): never {
    this.errorAt(this.token[0], message)
  }

  /** A ParseError placed at `token` (Go places it at the latest token; a block's body, at an earlier one). */
  protected errorAt(token: Item | undefined, message: string): never {
    throw new ParseError(this.parseName, token?.line ?? 0, message, token ? location(this.text, token.pos).column : 0)
  }

  /** Parses one level deeper, refusing to go past MAX_NESTING. */
  protected nested<T>(parse: () => T): T {
    if (this.nesting >= MAX_NESTING) {
      this.errorf(
        `max nesting depth exceeded: more than ${MAX_NESTING} levels of {{if}}, {{range}}, {{with}}, {{block}} and parentheses`,
      )
    }
    this.nesting++
    try {
      return parse()
    } finally {
      this.nesting--
    }
  }

  protected expect(expected: ItemType, context: string): Item {
    const token = this.nextNonSpace()
    if (token.type !== expected) this.unexpected(token, context)
    return token
  }

  protected expectOneOf(expected1: ItemType, expected2: ItemType, context: string): Item {
    const token = this.nextNonSpace()
    if (token.type !== expected1 && token.type !== expected2) this.unexpected(token, context)
    return token
  }

  protected unexpected(token: Item, context: string): never {
    if (token.type === ItemType.Error) {
      let extra = ''
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.parseName}:${this.actionLine}`
        // Avoid "action in action".
        if (token.val.endsWith(' action')) extra = extra.slice(' in action'.length)
      }
      this.errorf(`${token.val}${extra}`)
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`)
  }

  /** A string or raw-string literal's value, with Go's "invalid syntax" on a bad one. */
  protected unquote(token: Item): string {
    try {
      return unquote(token.val)
    } catch (e) {
      this.errorf(e instanceof LiteralError ? e.message : String(e))
    }
  }

  /**
   * Pipeline:
   *	declarations? command ('|' command)*
   */
  protected pipeline(context: string, end: ItemType): PipeNode {
    const start = this.peekNonSpace()
    const decl: VariableNode[] = []
    const cmds: CommandNode[] = []
    let isAssign = false
    // Are there declarations or assignments?
    for (;;) {
      const v = this.peekNonSpace()
      if (v.type !== ItemType.Variable) break
      this.next()
      // Since space is a token, we need 3-token look-ahead here in the worst case: in "$x foo" we
      // need to read "foo" (as opposed to ":=") to know that $x is an argument variable rather than a
      // declaration. So remember the token adjacent to the variable so we can push it back if necessary.
      const tokenAfterVariable = this.peek()
      const next = this.peekNonSpace()
      if (next.type === ItemType.Assign || next.type === ItemType.Declare) {
        isAssign = next.type === ItemType.Assign
        this.nextNonSpace()
        decl.push(this.declare(v))
      } else if (next.type === ItemType.Char && next.val === ',') {
        this.nextNonSpace()
        decl.push(this.declare(v))
        if (context === 'range' && decl.length < 2) {
          const after = this.peekNonSpace().type
          // A second initialized variable in a range pipeline.
          if (after === ItemType.Variable || after === ItemType.RightDelim || after === ItemType.RightParen) continue
          this.errorf('range can only initialize variables')
        }
        this.errorf(`too many declarations in ${context}`)
      } else if (tokenAfterVariable.type === ItemType.Space) {
        this.backup3(v, tokenAfterVariable)
      } else {
        this.backup2(v)
      }
      break
    }
    for (;;) {
      const token = this.nextNonSpace()
      if (token.type === end) {
        // At this point, the pipeline is complete.
        const pipe: PipeNode = { type: 'pipe', pos: start.pos, line: start.line, isAssign, decl, cmds }
        this.checkPipeline(pipe, context)
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
          this.backup()
          cmds.push(this.command())
          break
        default:
          this.unexpected(token, context)
      }
    }
  }

  private declare(v: Item): VariableNode {
    const id = this.ids.of(v.val)
    this.def.vars.push(id)
    return { type: 'variable', pos: v.pos, ident: v.val.split('.'), id }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    // Reject empty pipelines.
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`)
    // Only the first command of a pipeline can start with a non executable operand.
    pipe.cmds.slice(1).forEach((c, i) => {
      const first = c.args[0]?.type
      if (first === 'bool' || first === 'dot' || first === 'nil' || first === 'number' || first === 'string') {
        // With A|B|C, pipeline stage 2 is B.
        this.errorf(`non executable command in pipeline stage ${i + 2}`)
      }
    })
  }

  /**
   * command:
   *	operand (space operand)*
   * Space-separated arguments up to a pipeline character or right delimiter.
   * We consume the pipe character but leave the right delim to terminate the action.
   */
  private command(): CommandNode {
    const args: ArgNode[] = []
    const pos = this.peekNonSpace().pos
    for (;;) {
      this.peekNonSpace() // Skip leading spaces.
      const operand = this.operand()
      if (operand) args.push(operand)
      const token = this.next()
      if (token.type === ItemType.Space) continue
      if (token.type === ItemType.RightDelim || token.type === ItemType.RightParen) this.backup()
      else if (token.type !== ItemType.Pipe) this.unexpected(token, 'operand')
      break
    }
    if (args.length === 0) this.errorf('empty command')
    return { type: 'command', pos, args, kinds: args.map((arg) => arg.type) }
  }

  /**
   * operand:
   *	term .Field*
   * An operand is a space-separated component of a command, a term possibly
   * followed by field accesses. Undefined means the next item is not an operand.
   */
  private operand(): ArgNode | undefined {
    const node = this.term()
    if (!node) return undefined
    if (this.peek().type !== ItemType.Field) return node
    const pos = this.peek().pos
    const field: string[] = []
    while (this.peek().type === ItemType.Field) field.push(this.next().val.slice(1))
    // As Go: more fields on a field or variable extend it; on a literal they are an error.
    switch (node.type) {
      case 'field':
        return { type: 'field', pos, ident: [...node.ident, ...field] }
      case 'variable':
        return { type: 'variable', pos, ident: [...node.ident, ...field], id: node.id }
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        this.errorf(`unexpected . after term ${quoteShort(nodeString(node))}`)
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
  private term(): ArgNode | undefined {
    const token = this.nextNonSpace()
    switch (token.type) {
      case ItemType.Identifier: {
        const has = this.options.hasFunction
        if (has && !has(token.val)) this.errorf(`function ${quoteShort(token.val)} not defined`)
        this.def.functions.add(token.val)
        return { type: 'identifier', pos: token.pos, ident: token.val }
      }
      case ItemType.Dot:
        return { type: 'dot', pos: token.pos }
      case ItemType.Nil:
        return { type: 'nil', pos: token.pos }
      case ItemType.Variable:
        return this.useVar(token)
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
          this.errorf(e instanceof Error ? e.message : String(e))
        }
      case ItemType.LeftParen:
        return this.nested(() => this.pipeline('parenthesized pipeline', ItemType.RightParen))
      case ItemType.String:
      case ItemType.RawString:
        return { type: 'string', pos: token.pos, quoted: token.val, text: this.unquote(token) }
    }
    this.backup()
    return undefined
  }

  /** useVar returns a node for a variable reference. It errors if the variable is not defined. */
  private useVar(token: Item): VariableNode {
    const ident = token.val.split('.')
    const name = ident[0] as string
    const id = this.ids.of(name)
    if (!this.def.vars.has(id)) this.errorf(`undefined variable ${quoteShort(name)}`)
    return { type: 'variable', pos: token.pos, ident, id }
  }
}

/** How Go prints an item in "unexpected ..." messages. */
function itemString(item: Item): string {
  if (item.type === ItemType.EOF) return 'EOF'
  if (item.type === ItemType.Error) return item.val
  if (isKeyword(item.type)) return `<${item.val}>`
  if (utf8(item.val).length > 10) return sprintf('%.10q...', [item.val])
  return sprintf('%q', [item.val])
}
