/**
 * Go's fmt package (Sprint, Sprintln, Sprintf) over the template data model,
 * ported from Go 1.19's fmt/print.go, fmt/format.go, strconv/ftoa.go and
 * strconv/quote.go so that the output matches Go's byte for byte.
 *
 * How the data model reaches fmt (see value.ts): numbers are float64, bigints
 * are Go `int` (64 bits), arrays are []interface{} and plain objects are
 * map[string]interface{}. An undefined value (a missing map key) reaches fmt
 * the way text/template passes it to print and printf: as a nil interface{}.
 */
import type { Value, ValueMap } from './value'
import { sortedKeys, typeName } from './value'

/** fmt.Sprint: the operands' default formats, with a space between two operands when neither is a string. */
export function sprint(args: readonly Value[]): string {
  const p = new Printer()
  let prevString = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    const isString = typeof arg === 'string'
    if (i > 0 && !isString && !prevString) p.buf += ' '
    if (isString) p.buf += arg
    else p.printArg(arg, V)
    prevString = isString
  }
  return p.buf
}

/** fmt.Sprintln: the operands' default formats, always separated by spaces, and a newline. */
export function sprintln(args: readonly Value[]): string {
  const p = new Printer()
  for (let i = 0; i < args.length; i++) {
    if (i > 0) p.buf += ' '
    const arg = args[i]
    if (typeof arg === 'string') p.buf += arg
    else p.printArg(arg, V)
  }
  return p.buf + '\n'
}

/** fmt.Sprintf, with every error form Go prints: %!d(string=x), %!d(MISSING), %!(EXTRA ...), ... */
export function sprintf(format: string, args: readonly Value[]): string {
  const p = new Printer()
  p.doPrintf(format, args)
  return p.buf
}

/**
 * fmt.Sprint(v) for one value (%v), as template output prints it. Undefined
 * prints "<nil>" as in sprint; text/template itself prints "<no value>" for a
 * missing value or a nil interface{} at the top of a pipeline, which is the
 * caller's business.
 */
export function formatValue(v: Value): string {
  switch (typeof v) {
    case 'string':
      return v
    case 'number':
      return formatFloatV(v)
    case 'bigint':
      return BigInt.asIntN(64, v).toString()
    case 'boolean':
      return v ? 'true' : 'false'
    case 'undefined':
      return NIL_ANGLE
    default: {
      if (v === null) return NIL_ANGLE
      const p = new Printer()
      p.printArg(v, V)
      return p.buf
    }
  }
}

const NIL_ANGLE = '<nil>'
const PERCENT = 0x25
const V = 0x76 // 'v'

/** The verbs, as code points. */
const enum C {
  b = 0x62,
  c = 0x63,
  d = 0x64,
  e = 0x65,
  f = 0x66,
  g = 0x67,
  o = 0x6f,
  p = 0x70,
  q = 0x71,
  s = 0x73,
  t = 0x74,
  v = 0x76,
  x = 0x78,
  E = 0x45,
  F = 0x46,
  G = 0x47,
  O = 0x4f,
  T = 0x54,
  U = 0x55,
  X = 0x58,
}

function tooLarge(x: number): boolean {
  return x > 1e6 || x < -1e6
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

/** fmt's pp and fmt structs in one: the output buffer and the current verb's flags. */
class Printer {
  buf = ''

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

  reordered = false
  goodArgNum = true
  // Results of parsenum, intFromArg and argNumber (Go returns several values).
  num = 0
  isNum = false
  newI = 0
  found = false

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
    this.buf += (this.zero ? '0' : ' ').repeat(n)
  }

  /** Appends s padded to the width with spaces (or zeros), on the left or, with '-', on the right. */
  pad(s: string): void {
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

  // ---- printing one operand (print.go) ----

  printArg(arg: Value, verb: number): void {
    if (arg === undefined || arg === null) {
      if (verb === C.T || verb === C.v) this.pad(NIL_ANGLE)
      else this.badVerb(verb, null)
      return
    }
    if (verb === C.T) {
      this.fmtS(typeName(arg))
      return
    }
    if (verb === C.p) {
      // Go prints a slice's or map's address, which has no meaning here.
      this.badVerb(verb, arg)
      return
    }
    this.printValue(arg, verb)
  }

  /** printValue for a non-nil value; the elements of slices and maps are interface{} values. */
  printValue(v: Value, verb: number): void {
    switch (typeof v) {
      case 'boolean':
        if (verb === C.t || verb === C.v) this.pad(v ? 'true' : 'false')
        else this.badVerb(verb, v)
        return
      case 'number':
        if (verb === C.v && !this.widPresent && !this.precPresent && !this.space && !this.plus && !this.sharp) {
          this.buf += formatFloatV(v)
        } else {
          this.fmtFloat(v, verb)
        }
        return
      case 'bigint':
        if ((verb === C.v || verb === C.d) && !this.widPresent && !this.precPresent && !this.plus && !this.space) {
          this.buf += BigInt.asIntN(64, v).toString()
        } else {
          this.fmtInteger(v, verb)
        }
        return
      case 'string':
        this.fmtString(v, verb)
        return
      case 'undefined':
        this.printNested(v, verb)
        return
      default:
        if (v === null) this.printNested(v, verb)
        else if (Array.isArray(v)) this.printSlice(v, verb)
        else this.printMap(v, verb)
    }
  }

  /** An element of a slice or map: an interface{}, which prints "<nil>" (unpadded) when nil. */
  printNested(v: Value, verb: number): void {
    if (v === undefined || v === null) this.buf += this.sharpV ? 'interface {}(nil)' : NIL_ANGLE
    else this.printValue(v, verb)
  }

  printSlice(a: readonly Value[], verb: number): void {
    if (this.sharpV) {
      this.buf += '[]interface {}{'
      for (let i = 0; i < a.length; i++) {
        if (i > 0) this.buf += ', '
        this.printNested(a[i], verb)
      }
      this.buf += '}'
    } else {
      this.buf += '['
      for (let i = 0; i < a.length; i++) {
        if (i > 0) this.buf += ' '
        this.printNested(a[i], verb)
      }
      this.buf += ']'
    }
  }

  printMap(m: ValueMap, verb: number): void {
    const keys = sortedKeys(m)
    this.buf += this.sharpV ? 'map[string]interface {}{' : 'map['
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string
      if (i > 0) this.buf += this.sharpV ? ', ' : ' '
      this.fmtString(key, verb)
      this.buf += ':'
      this.printNested(m[key], verb)
    }
    this.buf += this.sharpV ? '}' : ']'
  }

  /** %!verb(type=value), the value printed with %v and the current flags; %!verb(<nil>) for nil. */
  badVerb(verb: number, v: Value): void {
    this.buf += '%!' + String.fromCodePoint(verb) + '('
    if (v === undefined || v === null) {
      this.buf += NIL_ANGLE
    } else {
      this.buf += typeName(v) + '='
      this.printValue(v, C.v)
    }
    this.buf += ')'
  }

  fmtString(s: string, verb: number): void {
    switch (verb) {
      case C.v:
        if (this.sharpV) this.fmtQ(s)
        else this.fmtS(s)
        return
      case C.s:
        this.fmtS(s)
        return
      case C.x:
        this.fmtSx(s, false)
        return
      case C.X:
        this.fmtSx(s, true)
        return
      case C.q:
        this.fmtQ(s)
        return
      default:
        this.badVerb(verb, s)
    }
  }

  fmtS(s: string): void {
    this.pad(this.truncate(s))
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
    const bytes = utf8(s)
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
    if (this.widPresent && this.wid > width && !this.minus) this.writePadding(this.wid - width)
    const digits = upper ? UDIGITS : LDIGITS
    const prefix = upper ? '0X' : '0x'
    let out = this.sharp ? prefix : ''
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) {
        out += ' '
        if (this.sharp) out += prefix
      }
      const c = bytes[i] as number
      out += (digits[c >> 4] as string) + (digits[c & 0xf] as string)
    }
    this.buf += out
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width)
  }

  /** %q: a double-quoted Go string (ASCII only with '+'), or with '#' backquoted when possible. */
  fmtQ(s: string): void {
    s = this.truncate(s)
    if (this.sharp && canBackquote(s)) {
      this.pad('`' + s + '`')
      return
    }
    this.pad(quote(s, this.plus))
  }

  // ---- integers ----

  fmtInteger(v: bigint, verb: number): void {
    switch (verb) {
      case C.v:
      case C.d:
        this.fmtInt(v, 10, verb, false)
        return
      case C.b:
        this.fmtInt(v, 2, verb, false)
        return
      case C.o:
      case C.O:
        this.fmtInt(v, 8, verb, false)
        return
      case C.x:
        this.fmtInt(v, 16, verb, false)
        return
      case C.X:
        this.fmtInt(v, 16, verb, true)
        return
      case C.c:
        this.pad(String.fromCodePoint(validRune(BigInt.asUintN(64, v))))
        return
      case C.q:
        this.fmtQc(BigInt.asUintN(64, v))
        return
      case C.U:
        this.fmtUnicode(BigInt.asUintN(64, v))
        return
      default:
        this.badVerb(verb, v)
    }
  }

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
    if (prec > s.length) s = '0'.repeat(prec - s.length) + s
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
    let s = u.toString(16).toUpperCase()
    if (prec > s.length) s = '0'.repeat(prec - s.length) + s
    s = 'U+' + s
    if (this.sharp && u <= MAX_RUNE && isPrint(Number(u))) s += " '" + String.fromCodePoint(Number(u)) + "'"
    this.padSpaces(s)
  }

  // ---- floats ----

  fmtFloat(v: number, verb: number): void {
    switch (verb) {
      case C.v:
        this.fmtFloatPrec(v, C.g, -1)
        return
      case C.b:
      case C.g:
      case C.G:
      case C.x:
      case C.X:
        this.fmtFloatPrec(v, verb, -1)
        return
      case C.f:
      case C.e:
      case C.E:
        this.fmtFloatPrec(v, verb, 6)
        return
      case C.F:
        this.fmtFloatPrec(v, C.f, 6)
        return
      default:
        this.badVerb(verb, v)
    }
  }

  fmtFloatPrec(v: number, verb: number, prec: number): void {
    if (this.precPresent) prec = this.prec
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
        this.buf += num[0]
        this.writePadding(this.wid - num.length)
        this.buf += num.slice(1)
        return
      }
      this.pad(num)
      return
    }
    this.pad(num.slice(1))
  }

  // ---- Sprintf ----

  /** Go's parsenum: sets num, isNum and newI. */
  parsenum(s: string, start: number, end: number): void {
    let num = 0
    let isNum = false
    let i = start
    for (; i < end && isDigit(s.charCodeAt(i)); i++) {
      if (tooLarge(num)) {
        this.num = 0
        this.isNum = false
        this.newI = end
        return
      }
      num = num * 10 + s.charCodeAt(i) - 0x30
      isNum = true
    }
    this.num = num
    this.isNum = isNum
    this.newI = i
  }

  /** Go's intFromArg for '*': sets num, isNum and returns the next argument number. */
  intFromArg(a: readonly Value[], argNum: number): number {
    this.num = 0
    this.isNum = false
    if (argNum < a.length) {
      const v = a[argNum]
      if (typeof v === 'bigint') {
        const n = Number(BigInt.asIntN(64, v))
        if (!tooLarge(n)) {
          this.num = n
          this.isNum = true
        }
      }
      return argNum + 1
    }
    return argNum
  }

  /** Go's argNumber: an explicit [n] index at format[i]; sets newI and found, returns the argument number. */
  argNumber(argNum: number, format: string, i: number, numArgs: number): number {
    this.newI = i
    this.found = false
    if (format.length <= i || format.charCodeAt(i) !== 0x5b) return argNum
    this.reordered = true
    // parseArgNumber
    let index = 0
    let wid = 1
    let ok = false
    if (format.length - i >= 3) {
      for (let j = i + 1; j < format.length; j++) {
        if (format.charCodeAt(j) === 0x5d) {
          this.parsenum(format, i + 1, j)
          wid = j - i + 1
          if (this.isNum && this.newI === j) {
            index = this.num - 1
            ok = true
          }
          break
        }
      }
    }
    this.newI = i + wid
    if (ok && index >= 0 && index < numArgs) {
      this.found = true
      return index
    }
    this.goodArgNum = false
    this.found = ok
    return argNum
  }

  doPrintf(format: string, a: readonly Value[]): void {
    const end = format.length
    let argNum = 0
    let afterIndex = false
    this.reordered = false
    let i = 0
    while (i < end) {
      this.goodArgNum = true
      const next = format.indexOf('%', i)
      if (next < 0) {
        this.buf += i === 0 ? format : format.slice(i)
        break
      }
      if (next > i) this.buf += format.slice(i, next)
      i = next + 1

      this.clearFlags()
      let simple = false
      flags: for (; i < end; i++) {
        const c = format.charCodeAt(i)
        switch (c) {
          case 0x23: // '#'
            this.sharp = true
            break
          case 0x30: // '0': only pad with zeros on the left
            this.zero = !this.minus
            break
          case 0x2b: // '+'
            this.plus = true
            break
          case 0x2d: // '-'
            this.minus = true
            this.zero = false
            break
          case 0x20: // ' '
            this.space = true
            break
          default:
            // Fast path: a lower-case verb with no width, precision or index.
            if (c >= 0x61 && c <= 0x7a && argNum < a.length) {
              if (c === C.v) {
                this.sharpV = this.sharp
                this.sharp = false
                this.plusV = this.plus
                this.plus = false
              }
              this.printArg(a[argNum], c)
              argNum++
              i++
              simple = true
            }
            break flags
        }
      }
      if (simple) continue

      // An explicit argument index?
      argNum = this.argNumber(argNum, format, i, a.length)
      i = this.newI
      afterIndex = this.found

      // Width.
      if (i < end && format.charCodeAt(i) === 0x2a) {
        i++
        argNum = this.intFromArg(a, argNum)
        this.wid = this.num
        this.widPresent = this.isNum
        if (!this.widPresent) this.buf += '%!(BADWIDTH)'
        if (this.wid < 0) {
          this.wid = -this.wid
          this.minus = true
          this.zero = false
        }
        afterIndex = false
      } else {
        this.parsenum(format, i, end)
        this.wid = this.num
        this.widPresent = this.isNum
        i = this.newI
        if (afterIndex && this.widPresent) this.goodArgNum = false // "%[3]2d"
      }

      // Precision.
      if (i + 1 < end && format.charCodeAt(i) === 0x2e) {
        i++
        if (afterIndex) this.goodArgNum = false // "%[3].2d"
        argNum = this.argNumber(argNum, format, i, a.length)
        i = this.newI
        afterIndex = this.found
        if (i < end && format.charCodeAt(i) === 0x2a) {
          i++
          argNum = this.intFromArg(a, argNum)
          this.prec = this.num
          this.precPresent = this.isNum
          if (this.prec < 0) {
            this.prec = 0
            this.precPresent = false
          }
          if (!this.precPresent) this.buf += '%!(BADPREC)'
          afterIndex = false
        } else {
          this.parsenum(format, i, end)
          this.prec = this.num
          this.precPresent = this.isNum
          i = this.newI
          if (!this.precPresent) {
            this.prec = 0
            this.precPresent = true
          }
        }
      }

      if (!afterIndex) {
        argNum = this.argNumber(argNum, format, i, a.length)
        i = this.newI
        afterIndex = this.found
      }

      if (i >= end) {
        this.buf += '%!(NOVERB)'
        break
      }

      let verb = format.codePointAt(i) as number
      i += verb > 0xffff ? 2 : 1
      if (verb >= 0xd800 && verb <= 0xdfff) verb = 0xfffd

      if (verb === PERCENT) {
        // %% absorbs no operand and ignores width and precision.
        this.buf += '%'
      } else if (!this.goodArgNum) {
        this.buf += '%!' + String.fromCodePoint(verb) + '(BADINDEX)'
      } else if (argNum >= a.length) {
        this.buf += '%!' + String.fromCodePoint(verb) + '(MISSING)'
      } else {
        if (verb === C.v) {
          this.sharpV = this.sharp
          this.sharp = false
          this.plusV = this.plus
          this.plus = false
        }
        this.printArg(a[argNum], verb)
        argNum++
      }
    }

    // Extra operands, unless the format used explicit indexes.
    if (!this.reordered && argNum < a.length) {
      this.clearFlags()
      this.buf += '%!(EXTRA '
      for (let k = argNum; k < a.length; k++) {
        if (k > argNum) this.buf += ', '
        const arg = a[k]
        if (arg === undefined || arg === null) {
          this.buf += NIL_ANGLE
        } else {
          this.buf += typeName(arg) + '='
          this.printArg(arg, C.v)
        }
      }
      this.buf += ')'
    }
  }
}

// ---- strings, runes and UTF-8 ----

const LDIGITS = '0123456789abcdef'
const UDIGITS = '0123456789ABCDEF'
const MAX_RUNE = 0x10ffffn
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** Whether s[i] and s[i+1] are a surrogate pair (one rune; a lone surrogate is one U+FFFD rune, as Go sees it). */
function isPairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i)
  if (c < 0xd800 || c > 0xdbff) return false
  const d = s.charCodeAt(i + 1)
  return d >= 0xdc00 && d <= 0xdfff
}

/** The number of runes (code points) in s. */
function runeCount(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    if (isPairAt(s, i)) {
      n--
      i++
    }
  }
  return n
}

/** The UTF-8 bytes of s; a lone surrogate is U+FFFD, as encoding/json would have made it. */
function utf8(s: string): number[] {
  const out: number[] = []
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i)
    if (c < 0x80) {
      out.push(c)
      continue
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      if (isPairAt(s, i)) {
        c = s.codePointAt(i) as number
        i++
      } else {
        c = 0xfffd
      }
    }
    if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f))
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f))
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f))
  }
  return out
}

/** A rune as utf8.EncodeRune writes it: U+FFFD for surrogates and values above U+10FFFF. */
function validRune(c: bigint): number {
  if (c > MAX_RUNE) return 0xfffd
  const r = Number(c)
  return r >= 0xd800 && r <= 0xdfff ? 0xfffd : r
}

/** strconv.Quote, or strconv.QuoteToASCII when asciiOnly. */
export function quote(s: string, asciiOnly = false): string {
  let out = '"'
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // Printable ASCII other than the quote and the backslash is copied as is.
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) continue
    if (i > start) out += s.slice(start, i)
    let r = c
    if (c >= 0xd800 && c <= 0xdfff) {
      if (isPairAt(s, i)) {
        r = s.codePointAt(i) as number
        i++
      } else {
        r = 0xfffd
      }
    }
    out += escapeRune(r, 0x22, asciiOnly)
    start = i + 1
  }
  if (start === 0) return '"' + s + '"'
  return out + s.slice(start) + '"'
}

/** strconv.QuoteRune, or strconv.QuoteRuneToASCII when asciiOnly. */
function quoteRune(r: number, asciiOnly: boolean): string {
  if (r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) r = 0xfffd
  return "'" + escapeRune(r, 0x27, asciiOnly) + "'"
}

function escapeRune(r: number, q: number, asciiOnly: boolean): string {
  if (r === q || r === 0x5c) return '\\' + String.fromCharCode(r)
  if (asciiOnly) {
    if (r < 0x80 && isPrint(r)) return String.fromCharCode(r)
  } else if (isPrint(r)) {
    return String.fromCodePoint(r)
  }
  switch (r) {
    case 0x07:
      return '\\a'
    case 0x08:
      return '\\b'
    case 0x0c:
      return '\\f'
    case 0x0a:
      return '\\n'
    case 0x0d:
      return '\\r'
    case 0x09:
      return '\\t'
    case 0x0b:
      return '\\v'
  }
  if (r < 0x20 || r === 0x7f) return '\\x' + hex(r, 2)
  if (r < 0x10000) return '\\u' + hex(r, 4)
  return '\\U' + hex(r, 8)
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0')
}

/** strconv.CanBackquote. */
function canBackquote(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x80) {
      if (c === 0xfeff) return false // BOMs are invisible
      continue
    }
    if ((c < 0x20 && c !== 0x09) || c === 0x60 || c === 0x7f) return false
  }
  return true
}

/**
 * strconv.IsPrint (Go 1.19, Unicode 13): letters, marks, numbers, punctuation,
 * symbols and U+0020. The ranges of printable runes, as base-36 pairs (gap
 * since the end of the previous range, length), generated with
 *
 *   for r := 0; r <= 0x10FFFF; { if !strconv.IsPrint(rune(r)) { r++; continue }
 *     s := r; for r <= 0x10FFFF && strconv.IsPrint(rune(r)) { r++ }
 *     emit(s-prev, r-s); prev = r }
 */
const PRINT_RANGES =
  'w 2n y c 1 ju 2 6 4 7 1 1 1 k 1 b1 1 12 2 1e 2 3 1 1j 8 r 4 6 h m 2 5b 1 1c 2 1n 2 2t e 1n 2 1d 2 f ' +
  '1 s 2 1 1 b 1h l 1 i b f 1 4h 1 8 2 2 2 m 1 7 1 1 3 4 2 9 2 2 2 4 8 1 4 2 1 5 2 p 2 3 1 6 4 2 2 m 1 ' +
  '7 1 2 1 2 1 2 2 1 1 5 4 2 2 3 3 1 7 4 1 1 7 h a 3 1 9 1 3 1 m 1 7 1 2 1 5 2 a 1 3 1 3 2 1 f 4 2 c 7 ' +
  '7 1 3 1 8 2 2 2 m 1 7 1 2 1 5 2 9 2 2 2 3 7 3 4 2 1 5 2 i a 2 1 6 3 3 1 4 3 2 1 1 1 2 3 2 3 3 3 c 4 ' +
  '5 3 3 1 4 2 1 6 1 e l 5 d 1 3 1 n 1 g 3 8 1 3 1 4 7 2 1 3 5 4 2 a 7 m 1 3 1 n 1 a 1 5 2 9 1 3 1 4 7 ' +
  '2 7 1 1 4 2 a 1 2 d d 1 3 1 1f 1 3 1 6 4 g 2 q 1 3 1 i 3 o 1 9 1 1 2 7 3 1 4 6 1 1 1 8 6 a 2 3 c 1m ' +
  '4 t 11 2 1 1 1 5 1 o 1 1 1 n 2 5 1 1 1 6 2 a 2 4 w 20 1 10 4 13 1 10 1 f 1 d 11 5i 1 1 5 1 2 ah 1 4 ' +
  '2 7 1 1 1 4 2 15 1 4 2 x 1 4 2 7 1 1 1 4 2 f 1 1l 1 4 2 1v 2 w 3 q 6 2e 2 6 2 hs 1 s 3 2h 7 d 1 7 b ' +
  'n 9 k c d 1 3 1 2 c 2m 2 a 6 a 6 e 2 a 6 2h 7 17 5 1y a v 1 c 4 c 4 1 3 16 2 5 b 18 4 q 6 b 3 1q 2 ' +
  '1t 1 t 2 b 6 a 6 e 2 h 1r 24 4 19 3 38 8 1o 3 f 3 1o 7 17 2 b 8 17 5 6y 1 7v 2 6 2 12 2 6 2 8 1 1 1 ' +
  '1 1 1 1 v 2 1h 1 f 1 e 2 6 1 j 2 3 1 9 h o 8 1b h 2 2 r 1 d 3 w g x f 3w 4 if p b l 1ec 2 w 1 48 1 ' +
  '1b 1 44 5 19 1 1 5 1 2 1k 7 2 e o 9 7 1 7 1 7 1 7 1 7 1 7 1 7 1 7 1 37 19 q 1 2h c 5y q c 5 1r 1 2e ' +
  '2 2v 5 17 1 2m 1 2c c 1b 1 lp9 3 wd 3 1j 9 9o k 54 8 5c 2 9 16 1k 3 a 6 1k 8 1y 8 c 6 38 b u 3 26 1 ' +
  'b 4 x 1 1j 9 e 2 a 2 2v o s a 6 2 6 2 6 9 7 1 7 1 1o 4 3i 2 a 6 8mc c n 4 1d 6is a6 2 2y 12 7 c 5 5 ' +
  'q 1 5 1 1 1 2 1 2 1 3g h a5 g 1s 2 1i 14 e 2 q 6 1f 1 j 1 4 4 5 1 3r 4 5a 3 6 2 6 2 6 2 3 3 7 1 7 d ' +
  '2 2 c 1 q 1 j 1 2 1 f 2 e y 3f 5 3 4 19 3 2g 1 d 3 1 1b 1a 3m t 3 1d f s 4 10 9 u 5 17 5 u 1 11 4 e ' +
  '16 4e 2 a 6 10 4 10 4 14 8 1g b 1 40 8n 9 m a 8 48 6 2 1 1 18 1 2 3 1 2 n 1 20 8 9 1c j 1 2 5 x 3 r ' +
  '5 1 1s 1k 4 k 2 1e 1 2 5 8 1 3 1 t 2 3 4 a 7 9 7 1s w 13 4 c 9 1i 3 t 2 r 5 q 7 4 c 7 28 21 1j 1f d ' +
  '1f 7 1a 8 a 86 v 1 16 1 3 2 2 26 14 8 16 2e s k n 9 26 4 u f 1q 1 4 e p 7 a 6 1h 1 i 8 13 9 2o 1 k b ' +
  'i 1 18 1t 7 1 1 1 4 1 f 1 b 6 1n 5 a 6 4 1 8 2 2 2 m 1 7 1 2 1 5 1 a 2 2 2 3 2 1 6 1 5 7 2 7 3 5 3v ' +
  '2k 1 5 u 20 8 a 4m 1i 2 12 y 1x b a 6 d j 1l 7 a 1i r 2 f 4 g 5c 1o 2s 2b c 8 2 1 2 8 1 2 1 u 1 2 2 ' +
  'c 9 a 1y 8 2 1a 2 b r 20 8 2b t 1l 7b 9 1 19 1 e a t 3 w 2 m 1 e 21 7 1 2 1 18 3 1 1 2 1 9 8 a 6 6 1 ' +
  '2 1 11 1 2 1 6 7 a 8m p 53 1 f 1e d pn 2u 33 1 5 b 5g 24c tr 34h g7 6nt ft 7 v 1 a 4 2 2o u 2 6 a 1y ' +
  'a a 1 7 1 l 5 j j4 2j 2t 23 4 1l 7 h 1s 5 b 2 e 4qg 8 ye 16 9 6wn 7z 1d 3 h 4 8 b0 1s4 2z 5 d 3 9 7 ' +
  'a 2 4 3ts 6u a 13 2 22 8 32 n 1y 4a k c 2f 9 p 3r 2d 1 1z 1 2 2 1 2 2 2 4 1 c 1 1 1 7 1 1t 1 4 2 8 1 ' +
  '7 1 s 1 4 1 5 1 1 3 7 1 9g 2 84 2 ji f 5 1 f 11s 7 1 h 2 7 1 2 1 5 5x 19 3 e 2 a 4 2 a8 1m 5 1 zk 5h ' +
  '2 g 15 24 4 a 4 2 lt 1w 24 1p 5e 4 1 r 1 2 1 1 2 1 1 a 1 4 1 1 1 1 6 1 4 1 1 1 1 1 1 3 1 2 1 1 2 1 1 ' +
  '1 1 1 1 1 1 1 1 2 1 1 2 4 1 7 1 4 1 4 1 1 1 a 1 h 5 3 1 5 1 h 1g 2 7i 18 4 2s c f 2 f 1 f 1 11 a 4u ' +
  '1k t d 18 4 9 7 2 e 6 4a rc 8 d 3 d 3 38 c 2h 7 c k c 4 1k 8 a 6 14 8 u 2 2 26 3d 1 2a 1 3r c e 2 5 ' +
  '3 3 5 7 9 p 7 7 9 3 d 7 15 43 1 1j 11 a sm wym y 379 b 66 2 4g2 e 5rl 2e7 f2 15u 3t7 fcmt 6o'

let printStarts: Uint32Array | undefined
let printEnds: Uint32Array | undefined

function isPrint(r: number): boolean {
  if (r <= 0xff) {
    if (r >= 0x20 && r <= 0x7e) return true
    if (r >= 0xa1 && r <= 0xff) return r !== 0xad
    return false
  }
  if (!printStarts || !printEnds) {
    const parts = PRINT_RANGES.split(' ')
    const n = parts.length >> 1
    printStarts = new Uint32Array(n)
    printEnds = new Uint32Array(n)
    let prev = 0
    for (let i = 0; i < n; i++) {
      const start = prev + parseInt(parts[2 * i] as string, 36)
      prev = start + parseInt(parts[2 * i + 1] as string, 36)
      printStarts[i] = start
      printEnds[i] = prev
    }
  }
  // The last range starting at or before r.
  let lo = 0
  let hi = printStarts.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((printStarts[mid] as number) <= r) lo = mid + 1
    else hi = mid
  }
  return lo > 0 && r < (printEnds[lo - 1] as number)
}

// ---- floats (strconv/ftoa.go) ----

/** %v of a float64: strconv.FormatFloat(v, 'g', -1, 64). */
function formatFloatV(v: number): string {
  const a = Math.abs(v)
  // Between 1e-4 and 1e6 Go's shortest %g and JavaScript's shortest form agree.
  if (a >= 1e-4 && a < 1e6) return String(v)
  if (v === 0) return Object.is(v, -0) ? '-0' : '0'
  return formatFloat(v, C.g, -1)
}

/** A decimal number 0.d × 10^dp, with no trailing zeros in d; zero has d = '' and dp = 0. */
interface Decimal {
  d: string
  dp: number
}

const view = new DataView(new ArrayBuffer(8))

/** strconv.FormatFloat(v, fmt, prec, 64) for fmt in b e E f g G x X. */
function formatFloat(v: number, fmt: number, prec: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return '+Inf'
  if (v === -Infinity) return '-Inf'
  const neg = v < 0 || Object.is(v, -0)
  const a = Math.abs(v)

  if (fmt === C.b || fmt === C.x || fmt === C.X) {
    const [mant, exp] = decompose(a)
    return fmt === C.b ? fmtB(neg, mant, exp) : fmtX(neg, mant, exp, prec, fmt === C.X)
  }

  if (prec < 0) {
    const d = shortestDecimal(a)
    if (fmt === C.e || fmt === C.E) prec = Math.max(d.d.length - 1, 0)
    else if (fmt === C.f) prec = Math.max(d.d.length - d.dp, 0)
    else prec = d.d.length
    return formatDigits(neg, d, prec, fmt, true)
  }

  // JavaScript rounds the exact binary value too, but halfway cases away from
  // zero where Go rounds them to even: use it when there cannot be a tie.
  if (fmt === C.f) {
    // x·10^(prec+1) is an integer (as a tie needs) only if x·2^(prec+1) is.
    if (prec <= 100 && a < 1e21 && !Number.isInteger(a * 2 ** (prec + 1))) return (neg ? '-' : '') + a.toFixed(prec)
    const d = exactDecimal(a)
    return fmtF(neg, round(d, d.dp + prec), prec)
  }
  if (fmt === C.g || fmt === C.G) {
    if (prec === 0) prec = 1
    return formatDigits(neg, roundedDecimal(a, prec), prec, fmt, false)
  }
  return fmtE(neg, roundedDecimal(a, prec + 1), prec, fmt)
}

/** a (> 0) rounded to n significant digits, halfway cases to even. */
function roundedDecimal(a: number, n: number): Decimal {
  if (a !== 0 && n <= 100) {
    // A tie needs exactly n+1 significant digits, so at most n+2-log10(a)
    // fractional bits: when a·2^j is not an integer, there is none.
    const j = n + 3 - Math.floor(Math.log10(a))
    if (j <= 1000 && !Number.isInteger(a * 2 ** j)) return parseExponential(a.toExponential(n - 1))
  }
  return round(exactDecimal(a), n)
}

/** The decimal of JavaScript's exponential form d.ddde±x, trailing zeros trimmed. */
function parseExponential(s: string): Decimal {
  const e = s.indexOf('e')
  const d = s.charCodeAt(1) === 0x2e ? s[0] + s.slice(2, e) : s.slice(0, e)
  return { d: trimZeros(d), dp: Number(s.slice(e + 1)) + 1 }
}

/** a (>= 0) = mant × 2^(exp-52), as Go's genericFtoa splits it. */
function decompose(a: number): [bigint, number] {
  view.setFloat64(0, a)
  const hi = view.getUint32(0)
  const expBits = (hi >>> 20) & 0x7ff
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4))
  let exp = expBits
  if (expBits === 0) exp++
  else mant |= 1n << 52n
  return [mant, exp - 1023]
}

function formatDigits(neg: boolean, d: Decimal, prec: number, fmt: number, shortest: boolean): string {
  if (fmt === C.e || fmt === C.E) return fmtE(neg, d, prec, fmt)
  if (fmt === C.f) return fmtF(neg, d, prec)
  // %g: %e for large and small exponents, %f otherwise.
  const nd = d.d.length
  let eprec = prec
  if (eprec > nd && nd >= d.dp) eprec = nd
  if (shortest) eprec = 6
  const exp = d.dp - 1
  if (exp < -4 || exp >= eprec) {
    if (prec > nd) prec = nd
    return fmtE(neg, d, prec - 1, fmt === C.g ? C.e : C.E)
  }
  if (prec > d.dp) prec = nd
  return fmtF(neg, d, Math.max(prec - d.dp, 0))
}

/** %e: -d.ddddde±dd */
function fmtE(neg: boolean, d: Decimal, prec: number, fmt: number): string {
  let s = neg ? '-' : ''
  s += d.d.length > 0 ? d.d[0] : '0'
  if (prec > 0) {
    s += '.'
    const m = Math.min(d.d.length, prec + 1)
    if (m > 1) s += d.d.slice(1, m)
    const zeros = prec + 1 - Math.max(m, 1)
    if (zeros > 0) s += '0'.repeat(zeros)
  }
  s += fmt === C.E ? 'E' : 'e'
  let exp = d.d.length === 0 ? 0 : d.dp - 1
  if (exp < 0) {
    s += '-'
    exp = -exp
  } else {
    s += '+'
  }
  return s + (exp < 10 ? '0' + exp : String(exp))
}

/** %f: -ddddddd.ddddd */
function fmtF(neg: boolean, d: Decimal, prec: number): string {
  let s = neg ? '-' : ''
  const nd = d.d.length
  if (d.dp > 0) {
    const m = Math.min(nd, d.dp)
    s += d.d.slice(0, m)
    if (d.dp > m) s += '0'.repeat(d.dp - m)
  } else {
    s += '0'
  }
  if (prec > 0) {
    s += '.'
    // Digits d.dp .. d.dp+prec-1, with zeros outside d.
    const lead = Math.min(Math.max(-d.dp, 0), prec)
    if (lead > 0) s += '0'.repeat(lead)
    const from = d.dp + lead
    const to = Math.min(nd, d.dp + prec)
    if (to > from) s += d.d.slice(from, to)
    const trail = prec - lead - Math.max(to - from, 0)
    if (trail > 0) s += '0'.repeat(trail)
  }
  return s
}

/** %b: -ddddddddp±ddd */
function fmtB(neg: boolean, mant: bigint, exp: number): string {
  exp -= 52
  return (neg ? '-' : '') + mant.toString() + 'p' + (exp >= 0 ? '+' : '') + exp
}

const MASK60 = (1n << 60n) - 1n
const MASK64 = (1n << 64n) - 1n

/** %x: -0x1.yyyyyyyyp±ddd or -0x0p+00 */
function fmtX(neg: boolean, mant: bigint, exp: number, prec: number, upper: boolean): string {
  if (mant === 0n) exp = 0
  // Shift digits so the leading 1 (if any) is at bit 60.
  mant <<= 8n
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant <<= 1n
    exp--
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4)
    const extra = (mant << shift) & MASK60
    mant >>= 60n - shift
    if ((extra | (mant & 1n)) > 1n << 59n) mant++
    mant <<= 60n - shift
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n
      exp++
    }
  }
  const digits = upper ? UDIGITS : LDIGITS
  let s = (neg ? '-' : '') + (upper ? '0X' : '0x') + ((mant >> 60n) & 1n).toString()
  mant = (mant << 4n) & MASK64
  if (prec < 0 && mant !== 0n) {
    s += '.'
    while (mant !== 0n) {
      s += digits[Number((mant >> 60n) & 15n)]
      mant = (mant << 4n) & MASK64
    }
  } else if (prec > 0) {
    s += '.'
    for (let i = 0; i < prec; i++) {
      s += digits[Number((mant >> 60n) & 15n)]
      mant = (mant << 4n) & MASK64
    }
  }
  s += upper ? 'P' : 'p'
  if (exp < 0) {
    s += '-'
    exp = -exp
  } else {
    s += '+'
  }
  return s + (exp < 10 ? '0' + exp : String(exp))
}

/** The shortest decimal that reads back as a: JavaScript's, which is also Go's. */
function shortestDecimal(a: number): Decimal {
  if (a === 0) return { d: '', dp: 0 }
  return parseExponential(a.toExponential())
}

const pow5: bigint[] = []

/** The exact decimal value of a (>= 0). */
function exactDecimal(a: number): Decimal {
  if (a === 0) return { d: '', dp: 0 }
  let s: string
  let dp: number
  if (a <= 9007199254740992 && Number.isInteger(a)) {
    s = String(a)
    dp = s.length
  } else {
    const [mant, exp] = decompose(a)
    const e2 = exp - 52
    if (e2 >= 0) {
      s = (mant << BigInt(e2)).toString()
      dp = s.length
    } else {
      const k = -e2
      let p = pow5[k]
      if (p === undefined) {
        p = 5n ** BigInt(k)
        pow5[k] = p
      }
      s = (mant * p).toString()
      dp = s.length - k
    }
  }
  return { d: trimZeros(s), dp }
}

function trimZeros(s: string): string {
  let n = s.length
  while (n > 0 && s.charCodeAt(n - 1) === 0x30) n--
  return n === s.length ? s : s.slice(0, n)
}

/** Go's decimal.Round: to nd digits, halfway cases to even. */
function round(a: Decimal, nd: number): Decimal {
  const d = a.d
  if (nd < 0 || nd >= d.length) return a
  const c = d.charCodeAt(nd)
  const up = c === 0x35 && nd + 1 === d.length ? nd > 0 && (d.charCodeAt(nd - 1) - 0x30) % 2 !== 0 : c >= 0x35
  if (!up) {
    const t = trimZeros(d.slice(0, nd))
    return { d: t, dp: t.length === 0 ? 0 : a.dp }
  }
  for (let i = nd - 1; i >= 0; i--) {
    const ch = d.charCodeAt(i)
    if (ch < 0x39) return { d: d.slice(0, i) + String.fromCharCode(ch + 1), dp: a.dp }
  }
  // All nines: 1 with the decimal point one place further.
  return { d: '1', dp: a.dp + 1 }
}
