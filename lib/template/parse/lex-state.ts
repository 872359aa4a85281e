/**
 * The scanner's state (Go's lexer struct) and the moves the state functions
 * make with it: reading runes, emitting items, accepting runs.
 */
import { ItemType } from './items'
import type { Item } from './items'
import { NL, containsRune, countNewlines, isAlphaNumeric, isSpace } from './runes'

export interface LexOptions {
  leftDelim?: string // start of action; '{{' if empty
  rightDelim?: string // end of action; '}}' if empty
  emitComment?: boolean // emit Comment items
  breakOK?: boolean // break is a keyword (the parser sets it inside range)
  continueOK?: boolean // continue is a keyword (the parser sets it inside range)
}

export const eof = -1

// Trimming spaces.
// If the action begins "{{- " rather than "{{", then all space/tab/newlines
// preceding the action are trimmed; conversely if it ends " -}}" the
// leading spaces are trimmed. This is done entirely in the lexer; the
// parser never sees it happen. We require an ASCII space (' ', \t, \r, \n)
// to be present to avoid ambiguity with things like "{{-3}}". It reads
// better with the space present anyway. For simplicity, only ASCII
// does the job.
const trimMarker = 0x2d // '-': attached to left/right delimiter, trims trailing spaces from preceding/following text.
export const trimMarkerLen = 1 + 1 // marker plus space before or after

export const leftDelim = '{{'
export const rightDelim = '}}'
export const leftComment = '/*'
export const rightComment = '*/'

// atRightDelim's answers.
export const notAtDelim = 0
const atDelim = 1 // without trim marker
export const atTrimDelim = 2 // with trim marker

// StateFn represents the state of the scanner as a function that returns the next state.
export type StateFn = (l: LexerState) => StateFn | null

// LexerState holds the state of the scanner.
export class LexerState {
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
  state: StateFn | null // the next state; null once EOF or an error has been emitted
  item: Item | null = null // the item emitted by the last state, not yet returned by nextItem

  constructor(name: string, input: string, options: LexOptions, start: StateFn) {
    this.state = start
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

export function hasLeftTrimMarker(input: string, pos: number): boolean {
  return input.charCodeAt(pos) === trimMarker && isSpace(input.charCodeAt(pos + 1))
}

export function hasRightTrimMarker(input: string, pos: number): boolean {
  return isSpace(input.charCodeAt(pos)) && input.charCodeAt(pos + 1) === trimMarker
}
