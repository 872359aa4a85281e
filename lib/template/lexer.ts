/**
 * The lexer of Go's text/template (text/template/parse/lex.go, Go 1.19),
 * written as Go 1.20 and later write it: a pull lexer. There is no goroutine
 * and no channel; nextItem runs the state functions until one of them has
 * emitted an item, and keeps the state it stopped in for the next call. Each
 * state function emits at most one item.
 *
 * The input is a JS string, so positions are UTF-16 offsets where Go's are
 * byte offsets, and a "rune" is a code point read with codePointAt.
 */

// ItemType identifies the type of lex items.
export const enum ItemType {
  Error, // error occurred; value is text of error
  Bool, // boolean constant
  Char, // printable ASCII character; grab bag for comma etc.
  CharConstant, // character constant
  Comment, // comment text
  Assign, // equals ('=') introducing an assignment
  Declare, // colon-equals (':=') introducing a declaration
  EOF,
  Field, // alphanumeric identifier starting with '.'
  Identifier, // alphanumeric identifier not starting with '.'
  LeftDelim, // left action delimiter
  LeftParen, // '(' inside action
  Number, // simple number, including imaginary; here also complex (1+2i), which Go calls itemComplex
  Pipe, // pipe symbol
  RawString, // raw quoted string (includes quotes)
  RightDelim, // right action delimiter
  RightParen, // ')' inside action
  Space, // run of spaces separating arguments
  String, // quoted string (includes quotes)
  Text, // plain text
  Variable, // variable starting with '$', such as '$' or  '$1' or '$hello'
  // Keywords appear after all the rest.
  Keyword, // used only to delimit the keywords
  Block, // block keyword
  Break, // break keyword
  Continue, // continue keyword
  Dot, // the cursor, spelled '.'
  Define, // define keyword
  Else, // else keyword
  End, // end keyword
  If, // if keyword
  Nil, // the untyped nil constant, easiest to treat as a keyword
  Range, // range keyword
  Template, // template keyword
  With, // with keyword
}

// Item represents a token or text string returned from the scanner.
export interface Item {
  type: ItemType // The type of this item.
  pos: number // The starting position, in UTF-16 code units, of this item in the input string.
  val: string // The value of this item.
  line: number // The line number at the start of this item.
}

export interface LexOptions {
  leftDelim?: string // start of action; '{{' if empty
  rightDelim?: string // end of action; '}}' if empty
  emitComment?: boolean // emit Comment items
  breakOK?: boolean // break is a keyword (the parser sets it inside range)
  continueOK?: boolean // continue is a keyword (the parser sets it inside range)
}

// The names of the item types, as Go's lex_test.go prints them (with names added for Assign, Text and Keyword).
const itemNames: readonly string[] = [
  'error',
  'bool',
  'char',
  'charconst',
  'comment',
  '=',
  ':=',
  'EOF',
  'field',
  'identifier',
  'left delim',
  '(',
  'number',
  'pipe',
  'raw string',
  'right delim',
  ')',
  'space',
  'string',
  'text',
  'variable',
  'keyword',
  'block',
  'break',
  'continue',
  '.',
  'define',
  'else',
  'end',
  'if',
  'nil',
  'range',
  'template',
  'with',
]

// itemTypeName returns the name of an item type, for messages and tests.
export function itemTypeName(t: ItemType): string {
  return itemNames[t] ?? `item${t}`
}

// isKeyword reports whether the item type is a keyword (Dot and Nil included).
export function isKeyword(t: ItemType): boolean {
  return t > ItemType.Keyword
}

const key: ReadonlyMap<string, ItemType> = new Map([
  ['.', ItemType.Dot],
  ['block', ItemType.Block],
  ['break', ItemType.Break],
  ['continue', ItemType.Continue],
  ['define', ItemType.Define],
  ['else', ItemType.Else],
  ['end', ItemType.End],
  ['if', ItemType.If],
  ['range', ItemType.Range],
  ['nil', ItemType.Nil],
  ['template', ItemType.Template],
  ['with', ItemType.With],
])

const eof = -1

// Code points the lexer looks for.
const NL = 0x0a
const BACKSLASH = 0x5c

// Trimming spaces.
// If the action begins "{{- " rather than "{{", then all space/tab/newlines
// preceding the action are trimmed; conversely if it ends " -}}" the
// leading spaces are trimmed. This is done entirely in the lexer; the
// parser never sees it happen. We require an ASCII space (' ', \t, \r, \n)
// to be present to avoid ambiguity with things like "{{-3}}". It reads
// better with the space present anyway. For simplicity, only ASCII
// does the job.
const trimMarker = 0x2d // '-': attached to left/right delimiter, trims trailing spaces from preceding/following text.
const trimMarkerLen = 1 + 1 // marker plus space before or after

const leftDelim = '{{'
const rightDelim = '}}'
const leftComment = '/*'
const rightComment = '*/'

// atRightDelim's answers.
const notAtDelim = 0
const atDelim = 1 // without trim marker
const atTrimDelim = 2 // with trim marker

// StateFn represents the state of the scanner as a function that returns the next state.
type StateFn = (l: LexerState) => StateFn | null

// LexerState holds the state of the scanner.
class LexerState {
  readonly name: string // the name of the input; used only for error reports
  readonly input: string // the string being scanned
  readonly leftDelim: string // start of action
  readonly rightDelim: string // end of action
  readonly emitComment: boolean // emit Comment items
  readonly breakOK: boolean // break keyword allowed
  readonly continueOK: boolean // continue keyword allowed
  pos = 0 // current position in the input
  start = 0 // start position of this item
  atEOF = false // we have hit the end of input and returned eof
  parenDepth = 0 // nesting depth of ( ) exprs
  line = 1 // 1+number of newlines seen
  startLine = 1 // start line of this item
  state: StateFn | null = lexText // the next state; null once EOF or an error has been emitted
  item: Item | null = null // the item emitted by the last state, not yet returned by nextItem

  constructor(name: string, input: string, options: LexOptions) {
    this.name = name
    this.input = input
    this.leftDelim = options.leftDelim || leftDelim
    this.rightDelim = options.rightDelim || rightDelim
    this.emitComment = options.emitComment ?? false
    this.breakOK = options.breakOK ?? false
    this.continueOK = options.continueOK ?? false
  }

  // next returns the next rune in the input.
  next(): number {
    if (this.pos >= this.input.length) {
      this.atEOF = true
      return eof
    }
    const r = this.input.codePointAt(this.pos) as number
    this.pos += r > 0xffff ? 2 : 1
    if (r === NL) this.line++
    return r
  }

  // peek returns but does not consume the next rune in the input.
  peek(): number {
    const r = this.next()
    this.backup()
    return r
  }

  // backup steps back one rune.
  backup(): void {
    if (!this.atEOF && this.pos > 0) {
      const c = this.input.charCodeAt(this.pos - 1)
      if (c >= 0xdc00 && c <= 0xdfff && this.pos > 1) {
        const h = this.input.charCodeAt(this.pos - 2)
        this.pos -= h >= 0xd800 && h <= 0xdbff ? 2 : 1
        return
      }
      this.pos--
      // Correct newline count.
      if (c === NL) this.line--
    }
  }

  // emit passes an item back to the client.
  emit(t: ItemType): void {
    this.item = { type: t, pos: this.start, val: this.input.slice(this.start, this.pos), line: this.startLine }
    this.start = this.pos
    this.startLine = this.line
  }

  // ignore skips over the pending input before this point.
  ignore(): void {
    this.line += countNewlines(this.input, this.start, this.pos)
    this.start = this.pos
    this.startLine = this.line
  }

  // accept consumes the next rune if it's from the valid set.
  accept(valid: string): boolean {
    if (containsRune(valid, this.next())) return true
    this.backup()
    return false
  }

  // acceptRun consumes a run of runes from the valid set.
  acceptRun(valid: string): void {
    while (containsRune(valid, this.next())) {
      // absorb.
    }
    this.backup()
  }

  // errorf returns an error token and terminates the scan by passing
  // back a null pointer that will be the next state, terminating nextItem.
  errorf(message: string): null {
    this.item = { type: ItemType.Error, pos: this.start, val: message, line: this.startLine }
    return null
  }

  // atRightDelim reports whether the lexer is at a right delimiter, possibly preceded by a trim marker.
  atRightDelim(): number {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(this.rightDelim, this.pos + trimMarkerLen)) {
      return atTrimDelim // With trim marker.
    }
    if (this.input.startsWith(this.rightDelim, this.pos)) return atDelim // Without trim marker.
    return notAtDelim
  }

  // atTerminator reports whether the input is at valid termination character to
  // appear after an identifier. Breaks .X.Y into two pieces. Also catches cases
  // like "$x+2" not being acceptable without a space, in case we decide one
  // day to implement arithmetic.
  atTerminator(): boolean {
    const r = this.peek()
    if (isSpace(r)) return true
    switch (r) {
      case eof:
      case 0x2e: // '.'
      case 0x2c: // ','
      case 0x7c: // '|'
      case 0x3a: // ':'
      case 0x29: // ')'
      case 0x28: // '('
        return true
    }
    return this.input.startsWith(this.rightDelim, this.pos)
  }

  scanNumber(): boolean {
    // Optional leading sign.
    this.accept('+-')
    // Is it hex?
    let digits = decimalDigits
    if (this.accept('0')) {
      // Note: Leading 0 does not mean octal in floats.
      if (this.accept('xX')) {
        digits = hexDigits
      } else if (this.accept('oO')) {
        digits = '01234567_'
      } else if (this.accept('bB')) {
        digits = '01_'
      }
    }
    this.acceptRun(digits)
    if (this.accept('.')) this.acceptRun(digits)
    if (digits === decimalDigits && this.accept('eE')) {
      this.accept('+-')
      this.acceptRun(decimalDigits)
    }
    if (digits === hexDigits && this.accept('pP')) {
      this.accept('+-')
      this.acceptRun(decimalDigits)
    }
    // Is it imaginary?
    this.accept('i')
    // Next thing mustn't be alphanumeric.
    if (isAlphaNumeric(this.peek())) {
      this.next()
      return false
    }
    return true
  }
}

const decimalDigits = '0123456789_'
const hexDigits = '0123456789abcdefABCDEF_'

/**
 * Lexer scans a template into items. Call nextItem until it returns an EOF
 * or Error item; after either, it returns EOF items for ever.
 */
export class Lexer {
  private readonly l: LexerState

  constructor(name: string, input: string, options: LexOptions = {}) {
    this.l = new LexerState(name, input, options)
  }

  // nextItem returns the next item from the input.
  nextItem(): Item {
    const l = this.l
    let item = l.item
    while (item === null) {
      const state = l.state
      if (state === null) return { type: ItemType.EOF, pos: l.start, val: '', line: l.startLine }
      l.state = state(l)
      item = l.item
    }
    l.item = null
    return item
  }
}

// state functions

// lexText scans until an opening action delimiter, "{{".
function lexText(l: LexerState): StateFn | null {
  const x = l.input.indexOf(l.leftDelim, l.pos)
  if (x >= 0) {
    const ldn = l.leftDelim.length
    l.pos = x
    let trimLength = 0
    if (hasLeftTrimMarker(l.input, l.pos + ldn)) trimLength = rightTrimLength(l.input, l.start, l.pos)
    l.pos -= trimLength
    if (l.pos > l.start) {
      l.line += countNewlines(l.input, l.start, l.pos)
      l.emit(ItemType.Text)
    }
    l.pos += trimLength
    l.ignore()
    return lexLeftDelim
  }
  l.pos = l.input.length
  // Correctly reached EOF.
  if (l.pos > l.start) {
    l.line += countNewlines(l.input, l.start, l.pos)
    l.emit(ItemType.Text)
    return lexText // Which emits the EOF: one item per state.
  }
  l.emit(ItemType.EOF)
  return null
}

// rightTrimLength returns the length of the spaces at the end of input[start:end].
function rightTrimLength(input: string, start: number, end: number): number {
  let i = end
  while (i > start && isSpace(input.charCodeAt(i - 1))) i--
  return end - i
}

// leftTrimLength returns the length of the spaces at the beginning of input[pos:].
function leftTrimLength(input: string, pos: number): number {
  let i = pos
  while (i < input.length && isSpace(input.charCodeAt(i))) i++
  return i - pos
}

// lexLeftDelim scans the left delimiter, which is known to be present, possibly with a trim marker.
function lexLeftDelim(l: LexerState): StateFn | null {
  l.pos += l.leftDelim.length
  const trimSpace = hasLeftTrimMarker(l.input, l.pos)
  const afterMarker = trimSpace ? trimMarkerLen : 0
  if (l.input.startsWith(leftComment, l.pos + afterMarker)) {
    l.pos += afterMarker
    l.ignore()
    return lexComment
  }
  l.emit(ItemType.LeftDelim)
  l.pos += afterMarker
  l.ignore()
  l.parenDepth = 0
  return lexInsideAction
}

// lexComment scans a comment. The left comment marker is known to be present.
function lexComment(l: LexerState): StateFn | null {
  l.pos += leftComment.length
  const i = l.input.indexOf(rightComment, l.pos)
  if (i < 0) return l.errorf('unclosed comment')
  l.pos = i + rightComment.length
  const delim = l.atRightDelim()
  if (delim === notAtDelim) return l.errorf('comment ends before closing delimiter')
  if (l.emitComment) l.emit(ItemType.Comment)
  const trimSpace = delim === atTrimDelim
  if (trimSpace) l.pos += trimMarkerLen
  l.pos += l.rightDelim.length
  if (trimSpace) l.pos += leftTrimLength(l.input, l.pos)
  l.ignore()
  return lexText
}

// lexRightDelim scans the right delimiter, which is known to be present, possibly with a trim marker.
function lexRightDelim(l: LexerState): StateFn | null {
  const trimSpace = hasRightTrimMarker(l.input, l.pos)
  if (trimSpace) {
    l.pos += trimMarkerLen
    l.ignore()
  }
  l.pos += l.rightDelim.length
  l.emit(ItemType.RightDelim)
  if (trimSpace) {
    l.pos += leftTrimLength(l.input, l.pos)
    l.ignore()
  }
  return lexText
}

// lexInsideAction scans the elements inside action delimiters.
function lexInsideAction(l: LexerState): StateFn | null {
  // Either number, quoted string, or identifier.
  // Spaces separate arguments; runs of spaces turn into Space.
  // Pipe symbols separate and are emitted.
  if (l.atRightDelim() !== notAtDelim) {
    if (l.parenDepth === 0) return lexRightDelim
    return l.errorf('unclosed left paren')
  }
  const r = l.next()
  switch (r) {
    case eof:
      return l.errorf('unclosed action')
    case 0x20: // ' '
    case 0x09: // '\t'
    case 0x0d: // '\r'
    case NL:
      l.backup() // Put space back in case we have " -}}".
      return lexSpace
    case 0x3d: // '='
      l.emit(ItemType.Assign)
      return lexInsideAction
    case 0x3a: // ':'
      if (l.next() !== 0x3d) return l.errorf('expected :=')
      l.emit(ItemType.Declare)
      return lexInsideAction
    case 0x7c: // '|'
      l.emit(ItemType.Pipe)
      return lexInsideAction
    case 0x22: // '"'
      return lexQuote
    case 0x60: // '`'
      return lexRawQuote
    case 0x24: // '$'
      return lexVariable
    case 0x27: // '\''
      return lexChar
    case 0x2e: // '.'
      // special look-ahead for ".field" so we don't break l.backup().
      if (l.pos < l.input.length) {
        const c = l.input.charCodeAt(l.pos)
        if (c < 0x30 || 0x39 < c) return lexField
      }
      // '.' can start a number.
      l.backup()
      return lexNumber
    case 0x2b: // '+'
    case 0x2d: // '-'
      l.backup()
      return lexNumber
    case 0x28: // '('
      l.emit(ItemType.LeftParen)
      l.parenDepth++
      return lexInsideAction
    case 0x29: // ')'
      l.emit(ItemType.RightParen)
      l.parenDepth--
      if (l.parenDepth < 0) return lexUnexpectedRightParen
      return lexInsideAction
  }
  if (0x30 <= r && r <= 0x39) {
    l.backup()
    return lexNumber
  }
  if (isAlphaNumeric(r)) {
    l.backup()
    return lexIdentifier
  }
  if (0x20 <= r && r < 0x7f) {
    // Printable ASCII.
    l.emit(ItemType.Char)
    return lexInsideAction
  }
  return l.errorf(`unrecognized character in action: ${formatRune(r)}`)
}

// lexUnexpectedRightParen reports the right paren just emitted, which closed no left paren.
// (Go emits both items from one step; here each state emits at most one.)
function lexUnexpectedRightParen(l: LexerState): StateFn | null {
  return l.errorf(`unexpected right paren ${formatRune(0x29)}`)
}

// lexSpace scans a run of space characters.
// We have not consumed the first space, which is known to be present.
// Take care if there is a trim-marked right delimiter, which starts with a space.
function lexSpace(l: LexerState): StateFn | null {
  let numSpaces = 0
  while (isSpace(l.peek())) {
    l.next()
    numSpaces++
  }
  // Be careful about a trim-marked closing delimiter, which has a minus
  // after a space. We know there is a space, so check for the '-' that might follow.
  if (hasRightTrimMarker(l.input, l.pos - 1) && l.input.startsWith(l.rightDelim, l.pos - 1 + trimMarkerLen)) {
    l.backup() // Before the space.
    if (numSpaces === 1) return lexRightDelim // On the delim, so go right to that.
  }
  l.emit(ItemType.Space)
  return lexInsideAction
}

// lexIdentifier scans an alphanumeric.
function lexIdentifier(l: LexerState): StateFn | null {
  let r: number
  do {
    r = l.next()
  } while (isAlphaNumeric(r)) // absorb.
  l.backup()
  const word = l.input.slice(l.start, l.pos)
  if (!l.atTerminator()) return l.errorf(`bad character ${formatRune(r)}`)
  const item = key.get(word)
  if (item !== undefined && item > ItemType.Keyword) {
    if ((item === ItemType.Break && !l.breakOK) || (item === ItemType.Continue && !l.continueOK)) {
      l.emit(ItemType.Identifier)
    } else {
      l.emit(item)
    }
  } else if (word.charCodeAt(0) === 0x2e) {
    l.emit(ItemType.Field)
  } else if (word === 'true' || word === 'false') {
    l.emit(ItemType.Bool)
  } else {
    l.emit(ItemType.Identifier)
  }
  return lexInsideAction
}

// lexField scans a field: .Alphanumeric.
// The . has been scanned.
function lexField(l: LexerState): StateFn | null {
  return lexFieldOrVariable(l, ItemType.Field)
}

// lexVariable scans a Variable: $Alphanumeric.
// The $ has been scanned.
function lexVariable(l: LexerState): StateFn | null {
  if (l.atTerminator()) {
    // Nothing interesting follows -> "$".
    l.emit(ItemType.Variable)
    return lexInsideAction
  }
  return lexFieldOrVariable(l, ItemType.Variable)
}

// lexFieldOrVariable scans a field or variable: [.$]Alphanumeric.
// The . or $ has been scanned.
function lexFieldOrVariable(l: LexerState, typ: ItemType.Field | ItemType.Variable): StateFn | null {
  if (l.atTerminator()) {
    // Nothing interesting follows -> "." or "$".
    l.emit(typ === ItemType.Variable ? ItemType.Variable : ItemType.Dot)
    return lexInsideAction
  }
  let r: number
  do {
    r = l.next()
  } while (isAlphaNumeric(r))
  l.backup()
  if (!l.atTerminator()) return l.errorf(`bad character ${formatRune(r)}`)
  l.emit(typ)
  return lexInsideAction
}

// lexChar scans a character constant. The initial quote is already
// scanned. Syntax checking is done by the parser.
function lexChar(l: LexerState): StateFn | null {
  for (;;) {
    let r = l.next()
    if (r === BACKSLASH) {
      r = l.next()
      if (r !== eof && r !== NL) continue
      return l.errorf('unterminated character constant')
    }
    if (r === eof || r === NL) return l.errorf('unterminated character constant')
    if (r === 0x27) break // '\''
  }
  l.emit(ItemType.CharConstant)
  return lexInsideAction
}

// lexNumber scans a number: decimal, octal, hex, float, or imaginary. This
// isn't a perfect number scanner - for instance it accepts "." and "0x0.2"
// and "089" - but when it's wrong the input is invalid and the parser (via
// strconv) will notice.
function lexNumber(l: LexerState): StateFn | null {
  if (!l.scanNumber()) return l.errorf(`bad number syntax: ${quote(l.input.slice(l.start, l.pos))}`)
  const sign = l.peek()
  if (sign === 0x2b || sign === 0x2d) {
    // Complex: 1+2i. No spaces, must end in 'i'.
    if (!l.scanNumber() || l.input.charCodeAt(l.pos - 1) !== 0x69) {
      return l.errorf(`bad number syntax: ${quote(l.input.slice(l.start, l.pos))}`)
    }
    l.emit(ItemType.Number) // Go emits itemComplex; here the 'i' and the inner sign tell it apart.
  } else {
    l.emit(ItemType.Number)
  }
  return lexInsideAction
}

// lexQuote scans a quoted string.
function lexQuote(l: LexerState): StateFn | null {
  for (;;) {
    let r = l.next()
    if (r === BACKSLASH) {
      r = l.next()
      if (r !== eof && r !== NL) continue
      return l.errorf('unterminated quoted string')
    }
    if (r === eof || r === NL) return l.errorf('unterminated quoted string')
    if (r === 0x22) break // '"'
  }
  l.emit(ItemType.String)
  return lexInsideAction
}

// lexRawQuote scans a raw quoted string.
function lexRawQuote(l: LexerState): StateFn | null {
  for (;;) {
    const r = l.next()
    if (r === eof) return l.errorf('unterminated raw quoted string')
    if (r === 0x60) break // '`'
  }
  l.emit(ItemType.RawString)
  return lexInsideAction
}

// isSpace reports whether r is a space character.
function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09 || r === 0x0d || r === NL
}

const letterOrDigit = /^[\p{L}\p{Nd}]$/u

// isAlphaNumeric reports whether r is an alphabetic, digit, or underscore.
function isAlphaNumeric(r: number): boolean {
  if (r < 0x80) {
    return r === 0x5f || (0x61 <= r && r <= 0x7a) || (0x41 <= r && r <= 0x5a) || (0x30 <= r && r <= 0x39)
  }
  return letterOrDigit.test(String.fromCodePoint(r))
}

function hasLeftTrimMarker(input: string, pos: number): boolean {
  return input.charCodeAt(pos) === trimMarker && isSpace(input.charCodeAt(pos + 1))
}

function hasRightTrimMarker(input: string, pos: number): boolean {
  return isSpace(input.charCodeAt(pos)) && input.charCodeAt(pos + 1) === trimMarker
}

// containsRune reports whether the ASCII string valid contains r.
function containsRune(valid: string, r: number): boolean {
  for (let i = 0; i < valid.length; i++) {
    if (valid.charCodeAt(i) === r) return true
  }
  return false
}

// countNewlines counts the newlines in input[start:end].
function countNewlines(input: string, start: number, end: number): number {
  let n = 0
  for (let i = input.indexOf('\n', start); i >= 0 && i < end; i = input.indexOf('\n', i + 1)) n++
  return n
}

// Messages: fmt's %#U and %q.

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u

// isPrint reports whether r is printable as Go's strconv.IsPrint defines it.
function isPrint(r: number): boolean {
  return r === 0x20 || printable.test(String.fromCodePoint(r))
}

// formatRune formats r as fmt's %#U does: U+0029 ')', or U+0001 if r is not printable.
function formatRune(r: number): string {
  const hex = `U+${r.toString(16).toUpperCase().padStart(4, '0')}`
  return isPrint(r) ? `${hex} '${String.fromCodePoint(r)}'` : hex
}

// quote quotes s as fmt's %q (strconv.Quote) does.
function quote(s: string): string {
  let out = '"'
  for (const ch of s) {
    const r = ch.codePointAt(0) as number
    if (r === 0x22 || r === BACKSLASH) {
      out += `\\${ch}`
    } else if (isPrint(r)) {
      out += ch
    } else {
      switch (r) {
        case 0x07:
          out += '\\a'
          break
        case 0x08:
          out += '\\b'
          break
        case 0x0c:
          out += '\\f'
          break
        case NL:
          out += '\\n'
          break
        case 0x0d:
          out += '\\r'
          break
        case 0x09:
          out += '\\t'
          break
        case 0x0b:
          out += '\\v'
          break
        default:
          if (r < 0x20 || r === 0x7f) out += `\\x${r.toString(16).padStart(2, '0')}`
          else if (r >= 0xd800 && r <= 0xdfff)
            out += '\\ufffd' // a lone surrogate: Go's utf8.RuneError
          else if (r < 0x10000) out += `\\u${r.toString(16).padStart(4, '0')}`
          else out += `\\U${r.toString(16).padStart(8, '0')}`
      }
    }
  }
  return `${out}"`
}
