/**
 * The lexer's state functions (lex.go's lexText, lexInsideAction, ...):
 * each scans from the current position, emits at most one item, and returns
 * the state to continue in.
 */
import { ItemType, keywords } from './items'
import {
  atTrimDelim,
  eof,
  hasLeftTrimMarker,
  hasRightTrimMarker,
  leftComment,
  notAtDelim,
  rightComment,
  trimMarkerLen,
} from './lex-state'
import { BACKSLASH, NL, countNewlines, formatRune, isAlphaNumeric, isSpace, quoteShort } from './runes'
import type { LexerState, StateFn } from './lex-state'

// state functions

// lexText scans until an opening action delimiter, "{{".
export function lexText(l: LexerState): StateFn | null {
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
  const item = keywords.get(word)
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
  if (!l.scanNumber()) return l.errorf(`bad number syntax: ${quoteShort(l.input.slice(l.start, l.pos))}`)
  const sign = l.peek()
  if (sign === 0x2b || sign === 0x2d) {
    // Complex: 1+2i. No spaces, must end in 'i'.
    if (!l.scanNumber() || l.input.charCodeAt(l.pos - 1) !== 0x69) {
      return l.errorf(`bad number syntax: ${quoteShort(l.input.slice(l.start, l.pos))}`)
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
