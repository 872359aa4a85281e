/**
 * Go's literal syntax, as the parser needs it: strconv.Unquote for string and
 * char constants, and strconv.ParseInt/ParseUint/ParseFloat (base 0, Go
 * syntax) for numbers. Errors carry Go's wording ("invalid syntax").
 */
export class SyntaxError extends Error {
  constructor(message = 'invalid syntax') {
    super(message)
  }
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
}

/**
 * One character of a quoted literal at `i`: its value and where the next
 * starts. A `\x` or octal escape above 0x7f stands for a byte, which a JS
 * string cannot hold alone; it becomes the code point of that value.
 */
export function unquoteChar(s: string, i: number, quote: string): { value: string; next: number } {
  const c = s[i]
  if (c === undefined) throw new SyntaxError()
  if (c === quote && (quote === "'" || quote === '"')) throw new SyntaxError()
  if (c !== '\\') {
    const cp = s.codePointAt(i) as number
    return { value: String.fromCodePoint(cp), next: i + (cp > 0xffff ? 2 : 1) }
  }
  const e = s[i + 1]
  if (e === undefined) throw new SyntaxError()
  if (Object.hasOwn(SIMPLE_ESCAPES, e)) return { value: SIMPLE_ESCAPES[e] as string, next: i + 2 }
  switch (e) {
    case 'x':
    case 'u':
    case 'U': {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8
      const hex = s.slice(i + 2, i + 2 + n)
      if (hex.length < n || !/^[0-9a-fA-F]+$/.test(hex)) throw new SyntaxError()
      const v = parseInt(hex, 16)
      if (e !== 'x' && (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))) throw new SyntaxError()
      return { value: String.fromCodePoint(v), next: i + 2 + n }
    }
    case "'":
    case '"':
      if (e !== quote) throw new SyntaxError()
      return { value: e, next: i + 2 }
    default: {
      if (e < '0' || e > '7') throw new SyntaxError()
      const oct = s.slice(i + 1, i + 4)
      if (!/^[0-7]{3}$/.test(oct)) throw new SyntaxError()
      const v = parseInt(oct, 8)
      if (v > 255) throw new SyntaxError()
      return { value: String.fromCodePoint(v), next: i + 4 }
    }
  }
}

/** strconv.Unquote of a "double-quoted", `raw` or 'c'har literal. */
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
  let out = ''
  let count = 0
  for (let i = 0; i < body.length; count++) {
    const { value, next } = unquoteChar(body, i, quote)
    out += value
    i = next
    if (quote === "'" && next !== body.length) throw new SyntaxError()
  }
  if (quote === "'" && count !== 1) throw new SyntaxError()
  return out
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

/** strconv.ParseUint(s, 0, 64) (signed: ParseInt), or undefined when it fails. */
function parseInteger(text: string, signed: boolean): bigint | undefined {
  let s = text
  let negative = false
  if (signed && (s[0] === '+' || s[0] === '-')) {
    negative = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '' || !underscoreOK(s)) return undefined
  let digits = s.replaceAll('_', '')
  let radix = 10
  if (/^0[xX]/.test(digits)) [radix, digits] = [16, digits.slice(2)]
  else if (/^0[bB]/.test(digits)) [radix, digits] = [2, digits.slice(2)]
  else if (/^0[oO]/.test(digits)) [radix, digits] = [8, digits.slice(2)]
  else if (digits.length > 1 && digits[0] === '0') [radix, digits] = [8, digits.slice(1)]
  const valid = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[radix] as RegExp
  if (!valid.test(digits)) return undefined
  let value = 0n
  const r = BigInt(radix)
  for (const d of digits) value = value * r + BigInt(parseInt(d, radix))
  if (negative) value = -value
  if (signed ? value < INT64_MIN || value > INT64_MAX : value > UINT64_MAX) return undefined
  return value
}

/** strconv.ParseFloat(s, 64) on Go syntax, or undefined when it fails (or overflows). */
function parseFloat64(text: string): number | undefined {
  if (!underscoreOK(text)) return undefined
  const s = text.replaceAll('_', '')
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(s)
  let value: number
  if (hex) {
    const [, sign, int = '', frac = '', exp = '0'] = hex
    if (int === '' && frac === '') return undefined
    const mantissa = BigInt(`0x${int}${frac}` === '0x' ? '0' : `0x${int}${frac}`)
    value = Number(mantissa) * 2 ** (Number(exp) - 4 * frac.length)
    if (sign === '-') value = -value
  } else {
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined
    value = Number(s)
  }
  return Number.isFinite(value) ? value : undefined
}

/**
 * What the lexer's first scanNumber takes of a number item: when a sign
 * follows it, the item is a complex constant (the lexer's itemComplex).
 */
const realPart =
  /^[+-]?(?:0[xX][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9_]*)?|0[oO][0-7_]*(?:\.[0-7_]*)?|0[bB][01_]*(?:\.[01_]*)?|[0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9_]*)?)i?/

export interface NumberValue {
  isInt: boolean
  isUint: boolean
  isFloat: boolean
  isComplex: boolean
  int64: bigint
  uint64: bigint
  float64: number
}

/**
 * The types a numeric constant fits, by Go's rules (parse.Tree.newNumber).
 * Imaginary and complex constants are recognised but not supported: JSON
 * has no complex numbers, and no prompt needs them.
 */
export function parseNumber(text: string, isChar: boolean): NumberValue {
  const n: NumberValue = {
    isInt: false,
    isUint: false,
    isFloat: false,
    isComplex: false,
    int64: 0n,
    uint64: 0n,
    float64: 0,
  }
  if (isChar) {
    const { value, next } = unquoteChar(text, 1, "'")
    if (text.slice(next) !== "'") throw new SyntaxError(`malformed character constant: ${text}`)
    const rune = BigInt(value.codePointAt(0) as number)
    return { ...n, isInt: true, isUint: true, isFloat: true, int64: rune, uint64: rune, float64: Number(rune) }
  }
  // Complex constants (1+2i, Go's itemComplex) and imaginary ones (Go parses them as complex): refused,
  // but only where Go takes them for such; "1e+i" is an illegal number there.
  const complex = /[+-]/.test(text.charAt(realPart.exec(text)?.[0].length ?? 0))
  if (text.endsWith('i') && (complex || parseFloat64(text.slice(0, -1)) !== undefined)) {
    throw new SyntaxError(`complex constants are not supported: ${text}`)
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
      if (!/[.eEpP]/.test(text)) throw new SyntaxError(`integer overflow: ${JSON.stringify(text)}`)
      Object.assign(n, { isFloat: true, float64: f })
      if (Number.isInteger(f) && f >= -(2 ** 63) && f < 2 ** 63) Object.assign(n, { isInt: true, int64: BigInt(f) })
      if (Number.isInteger(f) && f >= 0 && f < 2 ** 64) Object.assign(n, { isUint: true, uint64: BigInt(f) })
    }
  }
  if (!n.isInt && !n.isUint && !n.isFloat) throw new SyntaxError(`illegal number syntax: ${JSON.stringify(text)}`)
  return n
}
