/** strconv.FormatFloat for float64 (Go's strconv/ftoa.go), and the decimal rounding it needs. */
import { C, LDIGITS, UDIGITS } from './consts'

/** %v of a float64: strconv.FormatFloat(v, 'g', -1, 64). */
export function formatFloatV(v: number): string {
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
export function formatFloat(v: number, fmt: number, prec: number): string {
  if (Number.isNaN(v)) return 'NaN'
  if (v === Infinity) return '+Inf'
  if (v === -Infinity) return '-Inf'
  const neg = v < 0 || Object.is(v, -0)
  const a = Math.abs(v)
  if (prec < 0 && fmt === C.g && a !== 0) {
    // Between 1e-4 and 1e6 Go's shortest %g and JavaScript's shortest form agree; outside, Go's is
    // %e of the shortest digits, JavaScript's toExponential() but for an exponent of two digits at least.
    if (a >= 1e-4 && a < 1e6) return String(v)
    const e = a.toExponential()
    const at = e.indexOf('e') + 2
    return (neg ? '-' : '') + (e.length - at === 1 ? e.slice(0, at) + '0' + e.slice(at) : e)
  }

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
    const short = prec <= 15 ? shortFixed(a, prec) : undefined
    if (short !== undefined) return (neg ? '-' : '') + short
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

/**
 * a (>= 0) with prec decimals, from its shortest form (undefined when that
 * cannot tell). While a·10^prec < 2^52, half an ulp of a is less than half a
 * unit of the last decimal kept: no rounding boundary lies between a and its
 * shortest form unless that form is the boundary itself (its digits past prec
 * are exactly 5, a tie only the exact value settles); a boundary strictly
 * between them would be a closer shortest form. So the shortest form rounded
 * to prec decimals is a rounded.
 */
function shortFixed(a: number, prec: number): string | undefined {
  if (a * 10 ** prec >= 2 ** 52) return undefined
  const s = String(a)
  if (s.includes('e')) return undefined
  const dot = s.indexOf('.')
  const decimals = dot < 0 ? 0 : s.length - dot - 1
  if (decimals <= prec) {
    if (prec === 0) return s
    return (dot < 0 ? s + '.' : s) + '0'.repeat(prec - decimals)
  }
  const cut = dot + 1 + prec
  const first = s.charCodeAt(cut)
  if (first === 0x35 && cut === s.length - 1) return undefined
  const kept = s.slice(0, prec === 0 ? dot : cut)
  return first < 0x35 ? kept : roundUp(kept)
}

/** A decimal string one unit of its last digit up, carrying through nines (and past the point). */
function roundUp(t: string): string {
  let tail = ''
  for (let i = t.length - 1; i >= 0; i--) {
    const c = t.charCodeAt(i)
    if (c === 0x2e) tail = '.' + tail
    else if (c === 0x39) tail = '0' + tail
    else return t.slice(0, i) + String.fromCharCode(c + 1) + tail
  }
  return '1' + tail
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
  return s + exponent(d.d.length === 0 ? 0 : d.dp - 1)
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
    // The mantissa holds 15 digits at most: past them, zeros.
    let i = 0
    for (; i < prec && mant !== 0n; i++) {
      s += digits[Number((mant >> 60n) & 15n)]
      mant = (mant << 4n) & MASK64
    }
    if (i < prec) s += '0'.repeat(prec - i)
  }
  s += upper ? 'P' : 'p'
  return s + exponent(exp)
}

/** An exponent as strconv writes it: a sign, then at least two digits. */
function exponent(exp: number): string {
  const digits = String(Math.abs(exp))
  return (exp < 0 ? '-' : '+') + (digits.length < 2 ? '0' + digits : digits)
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
