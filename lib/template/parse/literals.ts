/**
 * Go's literal syntax, as the parser needs it: strconv.Unquote for string and
 * char constants, and strconv.ParseInt/ParseUint/ParseFloat (base 0, Go
 * syntax) and fmt.Sscan (complex constants) for numbers. Errors carry Go's wording ("invalid syntax").
 */
import { appendRune, fromUtf8 } from '../fmt/utf8'
import { quoteShort, short } from './runes'
import { Complex128 } from '../value'

export class SyntaxError extends Error {
  constructor(message = 'invalid syntax') {
    super(message)
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
  '\\': 0x5c,
}

/**
 * strconv.UnquoteChar: the character of a quoted literal at `i`, and where the
 * next starts. `value` is a code point, except after a `\x` or octal escape,
 * where it is a byte (`multibyte` false), as Go's.
 */
function unquoteChar(s: string, i: number, quote: string): { value: number; multibyte: boolean; next: number } {
  const c = s[i]
  if (c === undefined) throw new SyntaxError()
  if (c === quote && (quote === "'" || quote === '"')) throw new SyntaxError()
  if (c !== '\\') {
    const cp = s.codePointAt(i) as number
    return { value: cp, multibyte: cp >= 0x80, next: i + (cp > 0xffff ? 2 : 1) }
  }
  const e = s[i + 1]
  if (e === undefined) throw new SyntaxError()
  if (Object.hasOwn(SIMPLE_ESCAPES, e)) return { value: SIMPLE_ESCAPES[e] as number, multibyte: false, next: i + 2 }
  switch (e) {
    case 'x':
    case 'u':
    case 'U': {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8
      const hex = s.slice(i + 2, i + 2 + n)
      if (hex.length < n || !/^[0-9a-fA-F]+$/.test(hex)) throw new SyntaxError()
      const v = parseInt(hex, 16)
      if (e === 'x') return { value: v, multibyte: false, next: i + 2 + n }
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) throw new SyntaxError()
      return { value: v, multibyte: true, next: i + 2 + n }
    }
    case "'":
    case '"':
      if (e !== quote) throw new SyntaxError()
      return { value: e.charCodeAt(0), multibyte: false, next: i + 2 }
    default: {
      if (e < '0' || e > '7') throw new SyntaxError()
      const oct = s.slice(i + 1, i + 4)
      if (!/^[0-7]{3}$/.test(oct)) throw new SyntaxError()
      const v = parseInt(oct, 8)
      if (v > 255) throw new SyntaxError()
      return { value: v, multibyte: false, next: i + 4 }
    }
  }
}

/**
 * strconv.Unquote of a "double-quoted", `raw` or 'c'har literal. Go builds
 * the string from bytes: a `\x` or octal escape is one byte, anything else
 * its UTF-8. The bytes are decoded as UTF-8, so "\xc3\xa9" is "é"; a JS
 * string cannot hold invalid UTF-8 ("\xff"), which becomes U+FFFD.
 */
export function unquote(s: string): string {
  const quote = s[0]
  if (s.length < 2 || quote !== s[s.length - 1]) throw new SyntaxError()
  const body = s.slice(1, -1)
  if (quote === '`') {
    if (body.includes('`')) throw new SyntaxError()
    return body.includes('\r') ? body.replaceAll('\r', '') : body
  }
  if (quote !== '"' && quote !== "'") throw new SyntaxError()
  if (body.includes('\n')) throw new SyntaxError()
  if (!body.includes('\\') && !body.includes(quote)) {
    if (quote === '"') return body
    if ([...body].length === 1) return body
  }
  const bytes: number[] = []
  let count = 0
  for (let i = 0; i < body.length; count++) {
    const { value, multibyte, next } = unquoteChar(body, i, quote)
    if (value < 0x80 || !multibyte) bytes.push(value)
    else appendRune(bytes, value)
    i = next
    if (quote === "'" && next !== body.length) throw new SyntaxError()
  }
  if (quote === "'" && count !== 1) throw new SyntaxError()
  return fromUtf8(Uint8Array.from(bytes))
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UINT64_MAX = 2n ** 64n - 1n

/** Underscores only between digits, or between a base prefix and a digit (strconv's underscoreOK). */
function underscoreOK(s: string): boolean {
  let body = s.replace(/^[+-]/, '')
  let hex = false
  const prefixed = /^0[xXbBoO]/.test(body)
  if (prefixed) {
    hex = /^0[xX]/.test(body)
    body = '0' + body.slice(2) // the prefix counts as a digit before an underscore
  }
  if (!body.includes('_')) return true
  const digit = hex ? /[0-9a-fA-F]/ : /[0-9]/
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '_') continue
    const before = body[i - 1]
    const after = body[i + 1]
    if (before === undefined || after === undefined || !digit.test(before) || !digit.test(after)) return false
  }
  return true
}

/** Per radix: the digits, the prefix BigInt reads, and the most significant digits a uint64 can have. */
const RADIXES = {
  2: { valid: /^[01]+$/, prefix: '0b', maxDigits: 64 },
  8: { valid: /^[0-7]+$/, prefix: '0o', maxDigits: 22 },
  10: { valid: /^[0-9]+$/, prefix: '', maxDigits: 20 },
  16: { valid: /^[0-9a-fA-F]+$/, prefix: '0x', maxDigits: 16 },
} as const

/**
 * strconv.ParseUint(s, 0, 64) (signed: ParseInt), or undefined when it
 * fails. Linear in the text: a value with more significant digits than 64
 * bits can hold is out of range before any arithmetic.
 */
function parseInteger(text: string, signed: boolean): bigint | undefined {
  let s = text
  let negative = false
  if (signed && (s[0] === '+' || s[0] === '-')) {
    negative = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '' || !underscoreOK(s)) return undefined
  let digits = s.replaceAll('_', '')
  let radix: keyof typeof RADIXES = 10
  if (/^0[xX]/.test(digits)) [radix, digits] = [16, digits.slice(2)]
  else if (/^0[bB]/.test(digits)) [radix, digits] = [2, digits.slice(2)]
  else if (/^0[oO]/.test(digits)) [radix, digits] = [8, digits.slice(2)]
  else if (digits.length > 1 && digits[0] === '0') [radix, digits] = [8, digits.slice(1)]
  const { valid, prefix, maxDigits } = RADIXES[radix]
  if (!valid.test(digits)) return undefined
  const significant = digits.replace(/^0+/, '')
  if (significant.length > maxDigits) return undefined
  let value = significant === '' ? 0n : BigInt(prefix + significant)
  if (negative) value = -value
  if (signed ? value < INT64_MIN || value > INT64_MAX : value > UINT64_MAX) return undefined
  return value
}

/** strconv.ParseFloat(s, 64) on Go syntax: the value, or Go's reason for refusing it. */
function parseFloatChecked(text: string): number | 'invalid syntax' | 'value out of range' {
  if (!underscoreOK(text)) return 'invalid syntax'
  const s = text.replaceAll('_', '')
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(s)
  let value: number
  if (hex) {
    const [, sign, int = '', frac = '', exp = '0'] = hex
    if (int === '' && frac === '') return 'invalid syntax'
    value = hexFloat(int + frac, Number(exp) - 4 * frac.length)
    if (sign === '-') value = -value
  } else {
    // No two ways to match one text, so a text that does not match fails in linear time.
    if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(s)) return 'invalid syntax'
    value = Number(s)
  }
  return Number.isFinite(value) ? value : 'value out of range'
}

/**
 * The hex digits times 2^exp. Sixteen significant digits and a sticky bit for
 * the rest round as the whole would (BigInt to Number rounds to even); the
 * scaling is split in two so that neither half overflows on its own.
 */
function hexFloat(digits: string, exp: number): number {
  const significant = digits.replace(/^0+/, '')
  if (significant === '') return 0
  let mantissa = BigInt(`0x${significant.slice(0, 16)}`)
  if (significant.length > 16) {
    exp += 4 * (significant.length - 16)
    if (/[^0]/.test(significant.slice(16))) {
      mantissa = (mantissa << 1n) | 1n
      exp--
    }
  }
  const half = Math.trunc(exp / 2)
  return Number(mantissa) * 2 ** half * 2 ** (exp - half)
}

/** strconv.ParseFloat(s, 64) on Go syntax, or undefined when it fails (or overflows). */
function parseFloat64(text: string): number | undefined {
  const f = parseFloatChecked(text)
  return typeof f === 'number' ? f : undefined
}

/**
 * What the lexer's first scanNumber takes of a number item: when a sign
 * follows it, the item is a complex constant (the lexer's itemComplex).
 */
const realPart =
  /^[+-]?(?:0[xX][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9_]*)?|0[oO][0-7_]*(?:\.[0-7_]*)?|0[bB][01_]*(?:\.[01_]*)?|[0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9_]*)?)i?/

/**
 * fmt.Sscan(text, &complex128), which Go's parser lets read a complex constant
 * (itemComplex): ss.complexTokens, ss.floatToken and ss.convertFloat. Like
 * Sscan, it reads what it can and ignores the rest.
 */
function scanComplex(text: string): Complex128 {
  let i = 0
  const accept = (chars: string): boolean => {
    if (i < text.length && chars.includes(text[i] as string)) {
      i++
      return true
    }
    return false
  }
  const floatToken = (): string => {
    const start = i
    if (accept('nN') && accept('aA') && accept('nN')) return text.slice(start, i)
    accept('+-')
    if (accept('iI') && accept('nN') && accept('fF')) return text.slice(start, i)
    let digits = '0123456789_'
    let exp = 'eEpP'
    if (accept('0') && accept('xX')) {
      digits = '0123456789aAbBcCdDeEfF_'
      exp = 'pP'
    }
    while (accept(digits));
    if (accept('.')) while (accept(digits));
    if (accept(exp)) {
      accept('+-')
      while (accept('0123456789_'));
    }
    return text.slice(start, i)
  }
  const complexError = (): never => {
    throw new SyntaxError('syntax error scanning complex number')
  }
  const parens = accept('(')
  const real = floatToken()
  if (!accept('+-')) complexError()
  const imag = text.charAt(i - 1) + floatToken()
  if (!accept('i')) complexError()
  if (parens && !accept(')')) complexError()
  return new Complex128(convertFloat(real), convertFloat(imag))
}

/** fmt's convertFloat: strconv.ParseFloat, and a decimal mantissa with a binary exponent (1.5p3). */
function convertFloat(str: string): number {
  const fail = (fn: string, reason: string): never => {
    throw new SyntaxError(`strconv.${fn}: parsing ${quoteShort(str)}: ${reason}`)
  }
  const p = str.indexOf('p')
  if (p >= 0 && !/[xX]/.test(str)) {
    const f = parseFloatChecked(str.slice(0, p))
    if (typeof f !== 'number') return fail('ParseFloat', f)
    const m = str.slice(p + 1)
    if (!/^[+-]?[0-9]+$/.test(m)) return fail('Atoi', 'invalid syntax')
    return f * 2 ** Number(m)
  }
  const f = parseFloatChecked(str)
  return typeof f === 'number' ? f : fail('ParseFloat', f)
}

export interface NumberValue {
  isInt: boolean
  isUint: boolean
  isFloat: boolean
  isComplex: boolean
  int64: bigint
  uint64: bigint
  float64: number
  complex128: Complex128
  /**
   * The Go type the constant has as an operand, by its syntax: `3` an int,
   * `3.0` and `1e3` float64, `1i` complex128; `overflow` for an unsigned
   * integer past int64, `none` for what fits no operand type.
   */
  ideal: 'int' | 'float' | 'complex' | 'overflow' | 'none'
}

const COMPLEX_ZERO = new Complex128(0, 0)

/**
 * The types a numeric constant fits, by Go's rules (parse.Tree.newNumber):
 * a complex constant (`1+2i`, `1.5i`) with no imaginary part is also a
 * float, and maybe an integer.
 */
export function parseNumber(text: string, isChar: boolean): NumberValue {
  const n = numberTypes(text, isChar)
  n.ideal = idealType(text, n)
  return n
}

function idealType(text: string, n: NumberValue): NumberValue['ideal'] {
  if (n.isComplex) return 'complex'
  const hexInt = /^0[xX]/.test(text) && !/[pP]/.test(text)
  if (n.isFloat && !hexInt && !text.startsWith("'") && /[.eEpP]/.test(text)) return 'float'
  if (n.isInt) return 'int'
  return n.isUint ? 'overflow' : 'none'
}

function numberTypes(text: string, isChar: boolean): NumberValue {
  const n: NumberValue = {
    isInt: false,
    isUint: false,
    isFloat: false,
    isComplex: false,
    int64: 0n,
    uint64: 0n,
    float64: 0,
    complex128: COMPLEX_ZERO,
    ideal: 'none',
  }
  if (isChar) {
    const { value, next } = unquoteChar(text, 1, "'")
    if (text.slice(next) !== "'") throw new SyntaxError(`malformed character constant: ${short(text)}`)
    const rune = BigInt(value)
    return { ...n, isInt: true, isUint: true, isFloat: true, int64: rune, uint64: rune, float64: value }
  }
  if (text.endsWith('i')) {
    // Complex constants (1+2i, Go's itemComplex): the lexer's first number is followed by a sign.
    if (/[+-]/.test(text.charAt(realPart.exec(text)?.[0].length ?? 0))) return simplifyComplex(n, scanComplex(text))
    // Imaginary constants are complex, and also float when zero; "1e+i" is an illegal number.
    const f = parseFloat64(text.slice(0, -1))
    if (f !== undefined) return simplifyComplex(n, new Complex128(0, f))
  }
  const u = parseInteger(text, false)
  if (u !== undefined) Object.assign(n, { isUint: true, uint64: u })
  const i = parseInteger(text, true)
  if (i !== undefined) {
    Object.assign(n, { isInt: true, int64: i })
    if (i === 0n) Object.assign(n, { isUint: true, uint64: u ?? 0n })
  }
  if (n.isInt) Object.assign(n, { isFloat: true, float64: Number(n.int64) })
  else if (n.isUint) Object.assign(n, { isFloat: true, float64: Number(n.uint64) })
  else {
    const f = parseFloat64(text)
    if (f !== undefined) {
      if (!/[.eEpP]/.test(text)) throw new SyntaxError(`integer overflow: ${quoteShort(text)}`)
      Object.assign(n, { isFloat: true, float64: f })
      if (isInt64(f)) Object.assign(n, { isInt: true, int64: BigInt(f) })
      if (isUint64(f)) Object.assign(n, { isUint: true, uint64: BigInt(f) })
    }
  }
  if (!n.isInt && !n.isUint && !n.isFloat) throw new SyntaxError(`illegal number syntax: ${quoteShort(text)}`)
  return n
}

/** float64(int64(f)) == f, as Go computes it. */
function isInt64(f: number): boolean {
  return Number.isInteger(f) && f >= -(2 ** 63) && f < 2 ** 63
}

/** float64(uint64(f)) == f, as Go computes it (-0 included). */
function isUint64(f: number): boolean {
  return Number.isInteger(f) && f >= 0 && f < 2 ** 64
}

/** NumberNode.simplifyComplex: a complex constant with no imaginary part is also a float, and maybe an integer. */
function simplifyComplex(n: NumberValue, c: Complex128): NumberValue {
  n.isComplex = true
  n.complex128 = c
  n.isFloat = c.im === 0
  if (n.isFloat) {
    n.float64 = c.re
    n.isInt = isInt64(c.re)
    if (n.isInt) n.int64 = BigInt(c.re)
    n.isUint = isUint64(c.re)
    if (n.isUint) n.uint64 = BigInt(c.re)
  }
  return n
}
