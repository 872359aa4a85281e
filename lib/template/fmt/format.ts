/**
 * The formatting of one operand once the verb is known (Go's fmt/format.go):
 * padding, strings, integers and floats, under the current verb's flags.
 */
import { tooLong } from '../errors'
import { compareStrings } from '../value'
import type { ValueMap } from '../value'
import { C, LDIGITS } from './consts'
import { formatFloat } from './ftoa'
import { isPrint } from './isprint'
import { canBackquote, quoteRune, quoteWithin } from './quote'
import { isPairAt, MAX_RUNE, runeCount, utf8 } from './utf8'

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * What one formatting may do. Go's fmt has no bounds; an edge isolate needs
 * them: a string that could never be printed is refused before it is built,
 * data nested too deep is refused before the stack runs out, and the work
 * is counted as it goes.
 */
export interface FormatLimits {
  /** Characters the result may have. */
  readonly maxLength: number
  /** Levels of slices and maps inside one another that may be printed. */
  readonly maxDepth: number
  /** Counts the work of touching `chars` characters; it may throw to stop the formatting. */
  readonly charge?: (chars: number) => void
  /** A map's keys in Go's order; an execution sorts a map once, and counts it. */
  readonly sortedKeys: (m: ValueMap) => readonly string[]
}

export const UNLIMITED: FormatLimits = {
  maxLength: Infinity,
  maxDepth: Infinity,
  sortedKeys: (m) => Object.keys(m).sort(compareStrings),
}

/** Every byte as two hex digits. */
const HEX_PAIRS = Array.from({ length: 256 }, (_, b) => LDIGITS.charAt(b >> 4) + LDIGITS.charAt(b & 0xf))
const UPPER_HEX_PAIRS = HEX_PAIRS.map((pair) => pair.toUpperCase())

/** fmt's fmt struct: the output buffer and the current verb's flags. */
export class Formatter {
  buf = ''
  /** Characters of buf copied from strings as they are, rather than formatted. */
  copied = 0

  constructor(readonly limits: FormatLimits = UNLIMITED) {}

  /** Refuses, before anything is built, to let the buffer grow past the limit by `n` more characters. */
  reserve(n: number): void {
    if (this.buf.length + n > this.limits.maxLength) throw tooLong(this.limits.maxLength)
  }

  /** Appends s, within the limit. */
  put(s: string): void {
    this.reserve(s.length)
    this.buf += s
  }

  widPresent = false
  precPresent = false
  minus = false
  plus = false
  sharp = false
  space = false
  zero = false
  plusV = false
  sharpV = false
  wid = 0
  prec = 0

  clearFlags(): void {
    this.widPresent = false
    this.precPresent = false
    this.minus = false
    this.plus = false
    this.sharp = false
    this.space = false
    this.zero = false
    this.plusV = false
    this.sharpV = false
    this.wid = 0
    this.prec = 0
  }

  // ---- padding (format.go) ----

  writePadding(n: number): void {
    if (n <= 0) return
    this.reserve(n)
    this.buf += (this.zero ? '0' : ' ').repeat(n)
  }

  /** Appends s padded to the width with spaces (or zeros), on the left or, with '-', on the right. */
  pad(s: string): void {
    this.reserve(s.length)
    if (!this.widPresent || this.wid === 0) {
      this.buf += s
      return
    }
    const width = this.wid - runeCount(s)
    if (!this.minus) {
      this.writePadding(width)
      this.buf += s
    } else {
      this.buf += s
      this.writePadding(width)
    }
  }

  /** pad with the zero flag off. */
  padSpaces(s: string): void {
    const zero = this.zero
    this.zero = false
    this.pad(s)
    this.zero = zero
  }

  // ---- strings ----

  fmtS(s: string): void {
    const truncated = this.truncate(s)
    this.copied += truncated.length
    this.pad(truncated)
  }

  /** The precision limits a string's length in runes. */
  truncate(s: string): string {
    if (!this.precPresent) return s
    let n = this.prec
    for (let i = 0; i < s.length; i++) {
      if (--n < 0) return s.slice(0, i)
      if (isPairAt(s, i)) i++
    }
    return s
  }

  /** %x of a string: its UTF-8 bytes in hex; ' ' separates bytes, '#' adds 0x. */
  fmtSx(s: string, upper: boolean): void {
    // Two digits a byte, and a string has at least as many bytes as UTF-16 units.
    this.reserve(2 * (this.precPresent ? Math.min(this.prec, s.length) : s.length))
    // The precision counts bytes: the first prec characters hold them (one more, for the other half of a pair).
    const bytes = utf8(this.precPresent && this.prec < s.length ? s.slice(0, this.prec + 1) : s)
    let length = bytes.length
    if (this.precPresent && this.prec < length) length = this.prec
    let width = 2 * length
    if (width > 0) {
      if (this.space) {
        if (this.sharp) width *= 2
        width += length - 1
      } else if (this.sharp) {
        width += 2
      }
    } else {
      if (this.widPresent) this.writePadding(this.wid)
      return
    }
    this.reserve(width)
    if (this.widPresent && this.wid > width && !this.minus) this.writePadding(this.wid - width)
    const pairs = upper ? UPPER_HEX_PAIRS : HEX_PAIRS
    const x = upper ? '0X' : '0x'
    let out = ''
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) out += ' '
      if (this.sharp && (i === 0 || this.space)) out += x
      out += pairs[bytes[i] as number]
    }
    this.buf += out
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width)
  }

  /** %q: a double-quoted Go string (ASCII only with '+'), or with '#' backquoted when possible. */
  fmtQ(s: string): void {
    s = this.truncate(s)
    this.reserve(s.length + 2)
    if (this.sharp && canBackquote(s)) {
      this.pad('`' + s + '`')
      return
    }
    const quoted = quoteWithin(s, this.plus, this.limits.maxLength - this.buf.length)
    if (quoted === undefined) throw tooLong(this.limits.maxLength)
    // Quoting copies the text; what escapes add is built.
    this.copied += s.length
    this.pad(quoted)
  }

  // ---- integers ----

  fmtInt(value: bigint, base: number, verb: number, upper: boolean): void {
    const v = BigInt.asIntN(64, value)
    const negative = v < 0n
    const u = negative ? -v : v
    let prec = 0
    if (this.precPresent) {
      prec = this.prec
      // Precision 0 and value 0 print nothing but the padding.
      if (prec === 0 && u === 0n) {
        const zero = this.zero
        this.zero = false
        this.writePadding(this.wid)
        this.zero = zero
        return
      }
    } else if (this.zero && this.widPresent) {
      prec = this.wid
      if (negative || this.plus || this.space) prec-- // leave room for the sign
    }
    let s = u <= MAX_SAFE ? Number(u).toString(base) : u.toString(base)
    if (upper) s = s.toUpperCase()
    if (prec > s.length) {
      this.reserve(prec)
      s = '0'.repeat(prec - s.length) + s
    }
    if (this.sharp) {
      if (base === 2) s = '0b' + s
      else if (base === 8) {
        if (s.charCodeAt(0) !== 0x30) s = '0' + s
      } else if (base === 16) s = (upper ? '0X' : '0x') + s
    }
    if (verb === C.O) s = '0o' + s
    if (negative) s = '-' + s
    else if (this.plus) s = '+' + s
    else if (this.space) s = ' ' + s
    this.padSpaces(s)
  }

  fmtQc(c: bigint): void {
    const r = c > MAX_RUNE ? 0xfffd : Number(c)
    this.pad(quoteRune(r, this.plus))
  }

  /** %U: U+0078, or with '#' U+0078 'x' for a printable rune. */
  fmtUnicode(u: bigint): void {
    let prec = 4
    if (this.precPresent && this.prec > 4) prec = this.prec
    this.reserve(prec)
    let s = u.toString(16).toUpperCase()
    if (prec > s.length) s = '0'.repeat(prec - s.length) + s
    s = 'U+' + s
    if (this.sharp && u <= MAX_RUNE && isPrint(Number(u))) s += " '" + String.fromCodePoint(Number(u)) + "'"
    this.padSpaces(s)
  }

  // ---- floats ----

  fmtFloatPrec(v: number, verb: number, prec: number): void {
    if (this.precPresent) prec = this.prec
    // %e, %f and %x write every digit of the precision, and so does %g with '#'.
    if (prec > 0 && (this.sharp || (verb !== C.g && verb !== C.G && verb !== C.b))) this.reserve(prec)
    // The number with a sign in front: '+' when strconv gives none.
    let num = formatFloat(v, verb, prec)
    const c0 = num.charCodeAt(0)
    if (c0 !== 0x2d && c0 !== 0x2b) num = '+' + num
    if (this.space && num.charCodeAt(0) === 0x2b && !this.plus) num = ' ' + num.slice(1)
    // Infinities and NaN are not padded with zeros; NaN has no sign unless asked for.
    const c1 = num.charCodeAt(1)
    if (c1 === 0x49 || c1 === 0x4e) {
      if (c1 === 0x4e && !this.space && !this.plus) num = num.slice(1)
      this.padSpaces(num)
      return
    }
    // '#' forces a decimal point and keeps trailing zeros.
    if (this.sharp && verb !== C.b) {
      let digits = 0
      if (verb === C.v || verb === C.g || verb === C.G || verb === C.x) {
        digits = prec
        if (digits === -1) digits = 6
      }
      let tail = ''
      let hasDecimalPoint = false
      let sawNonzeroDigit = false
      for (let i = 1; i < num.length; i++) {
        const ch = num.charCodeAt(i)
        if (ch === 0x2e) {
          hasDecimalPoint = true
        } else if (ch === 0x70 || ch === 0x50 || ((ch === 0x65 || ch === 0x45) && verb !== C.x && verb !== C.X)) {
          tail = num.slice(i)
          num = num.slice(0, i)
          break
        } else {
          if (ch !== 0x30) sawNonzeroDigit = true
          if (sawNonzeroDigit) digits--
        }
      }
      if (!hasDecimalPoint) {
        if (num.length === 2 && num.charCodeAt(1) === 0x30) digits--
        num += '.'
      }
      if (digits > 0) num += '0'.repeat(digits)
      num += tail
    }
    if (this.plus || num.charCodeAt(0) !== 0x2b) {
      // Zero padding goes between the sign and the digits.
      if (this.zero && this.widPresent && this.wid > num.length) {
        this.put(num[0] as string)
        this.writePadding(this.wid - num.length)
        this.put(num.slice(1))
        return
      }
      this.pad(num)
      return
    }
    this.pad(num.slice(1))
  }
}
