/**
 * The predefined functions, with Go's semantics (text/template funcs.go).
 * Each declares its arity as Go's signature does, and whether it takes its
 * operands raw (reflect.Value in Go: a missing value stays missing) or as
 * interface{} (missing becomes nil). `and` and `or` are evaluated by the
 * executor, which short-circuits them.
 *
 * Deliberate difference: JSON numbers are float64 and constants like `3` are
 * int, which Go refuses to compare or use as an index. Here an int and a
 * float64 compare by value, and a whole float64 can index and slice.
 */
import { formatValue, sprint, sprintf, sprintln } from './fmt'
import { Complex128, Uint8, compareStrings, isMap, isTrue, kindOf, mapHas, typeName } from './value'
import type { Value } from './value'

export interface Builtin {
  /** Fixed parameters; with `variadic`, the least number of operands. */
  readonly arity: number
  readonly variadic: boolean
  /** Operands arrive as reflect.Values: missing stays undefined rather than becoming nil. */
  readonly raw: boolean
  /** The first parameter is a Go string (printf's format): the executor checks it as Go converts it. */
  readonly stringFirst?: boolean
  readonly call: (args: Value[]) => Value
}

function fixed(arity: number, call: (args: Value[]) => Value, raw = true): Builtin {
  return { arity, variadic: false, raw, call }
}

function variadic(arity: number, call: (args: Value[]) => Value, raw = true): Builtin {
  return { arity, variadic: true, raw, call }
}

/** `and` and `or` never reach `call`: the executor evaluates them lazily. */
const shortCircuit = (): Value => {
  throw new Error('unreachable')
}

export const BUILTINS: Readonly<Record<string, Builtin>> = {
  and: variadic(1, shortCircuit),
  or: variadic(1, shortCircuit),
  not: fixed(1, ([a]) => !isTrue(a)),
  len: fixed(1, ([a]) => length(a)),
  index: variadic(1, ([item, ...indexes]) => index(item, indexes)),
  slice: variadic(1, ([item, ...indexes]) => slice(item, indexes)),
  call: variadic(1, ([fn]) => call(fn)),
  print: variadic(0, (args) => sprint(args), false),
  printf: { ...variadic(1, ([format, ...args]) => sprintf(format as string, args), false), stringFirst: true },
  println: variadic(0, (args) => sprintln(args), false),
  html: variadic(0, (args) => htmlEscape(evalArgs(args)), false),
  js: variadic(0, (args) => jsEscape(evalArgs(args)), false),
  urlquery: variadic(0, (args) => queryEscape(evalArgs(args)), false),
  eq: variadic(1, ([a, ...bs]) => eq(a, bs)),
  ne: fixed(2, ([a, b]) => !eq(a, [b])),
  lt: fixed(2, ([a, b]) => lt(a, b)),
  le: fixed(2, ([a, b]) => lt(a, b) || eq(a, [b])),
  gt: fixed(2, ([a, b]) => !(lt(a, b) || eq(a, [b]))),
  ge: fixed(2, ([a, b]) => !lt(a, b)),
}

/** Go's indirectInterface: a nil interface{} is the invalid value. */
function indirect(v: Value): Value {
  return v === null ? undefined : v
}

function length(v: Value): bigint {
  if (v === null) throw new Error('len of nil pointer')
  if (v === undefined) throw new Error('reflect: call of reflect.Value.Type on zero Value')
  if (typeof v === 'string') return BigInt(utf8Length(v))
  if (Array.isArray(v)) return BigInt(v.length)
  if (isMap(v)) return BigInt(Object.keys(v).length)
  throw new Error(`len of type ${typeName(v)}`)
}

/** An index operand as Go's indexArg reads it, in range [0, cap]. */
function indexArg(v: Value, cap: number): number {
  let x: number
  if (typeof v === 'bigint') x = Number(v)
  else if (v instanceof Uint8) x = v.value
  else if (typeof v === 'number' && Number.isInteger(v)) x = v
  else if (v === undefined || v === null) throw new Error('cannot index slice/array with nil')
  else throw new Error(`cannot index slice/array with type ${typeName(v)}`)
  if (x < 0 || x > cap) throw new Error(`index out of range: ${x}`)
  return x
}

function index(item: Value, indexes: Value[]): Value {
  let v = indirect(item)
  if (v === undefined) throw new Error('index of untyped nil')
  for (const raw of indexes) {
    const i = indirect(raw)
    if (v === null) throw new Error('index of nil pointer')
    if (typeof v === 'string' || Array.isArray(v)) {
      const bytes: Uint8Array | undefined = typeof v === 'string' ? utf8.encode(v) : undefined
      const len: number = bytes ? bytes.length : (v as Value[]).length
      const x = indexArg(i, len)
      if (x === len) throw new Error(`reflect: ${bytes ? 'string' : 'slice'} index out of range`)
      v = bytes ? Uint8.of(bytes[x] as number) : (v as Value[])[x]
    } else if (isMap(v)) {
      if (typeof i !== 'string') {
        throw new Error(
          i === undefined
            ? 'value is nil; should be of type string'
            : `value has type ${typeName(i)}; should be string`,
        )
      }
      v = mapHas(v, i) ? v[i] : null
    } else {
      throw new Error(`can't index item of type ${typeName(v)}`)
    }
  }
  return v
}

function slice(item: Value, indexes: Value[]): Value {
  const v = indirect(item)
  if (v === undefined) throw new Error('slice of untyped nil')
  if (indexes.length > 3) throw new Error(`too many slice indexes: ${indexes.length}`)
  let len: number
  if (typeof v === 'string') {
    if (indexes.length === 3) throw new Error('cannot 3-index slice a string')
    len = utf8Length(v)
  } else if (Array.isArray(v)) {
    len = v.length
  } else {
    throw new Error(`can't slice item of type ${typeName(v)}`)
  }
  const idx = [0, len, len]
  indexes.forEach((x, i) => (idx[i] = indexArg(x, len)))
  const [from, to, max] = idx as [number, number, number]
  if (from > to) throw new Error(`invalid slice index: ${from} > ${to}`)
  if (indexes.length === 3 && to > max) throw new Error(`invalid slice index: ${to} > ${max}`)
  if (Array.isArray(v)) return v.slice(from, to)
  return isAscii(v) ? v.slice(from, to) : utf8Decoder.decode(utf8.encode(v).subarray(from, to))
}

function call(fn: Value): Value {
  const f = indirect(fn)
  if (f === undefined) throw new Error('call of nil')
  throw new Error(`non-function of type ${typeName(f)}`)
}

type BasicKind = 'bool' | 'number' | 'complex' | 'string' | 'invalid'

/**
 * Go's basicKind, with int, uint8 and float64 merged into one numeric kind:
 * Go itself compares ints with uints by value; floats are the deliberate
 * difference (see the note at the top).
 */
function basicKind(v: Value): BasicKind {
  switch (kindOf(v)) {
    case 'bool':
      return 'bool'
    case 'int':
    case 'uint8':
    case 'float64':
      return 'number'
    case 'complex128':
      return 'complex'
    case 'string':
      return 'string'
    default:
      return 'invalid'
  }
}

function eq(a: Value, others: Value[]): boolean {
  const x = indirect(a)
  if (others.length === 0) throw new Error('missing argument for comparison')
  const k1 = basicKind(x)
  for (const other of others) {
    const y = indirect(other)
    const k2 = basicKind(y)
    if (k1 !== k2) {
      if (x !== undefined && y !== undefined) throw new Error('incompatible types for comparison')
      continue
    }
    if (k1 === 'number') {
      if (typeof x === 'number' || typeof y === 'number' ? toNumber(x) === toNumber(y) : toInt(x) === toInt(y)) {
        return true
      }
    } else if (k1 === 'complex') {
      const [a, b] = [x as Complex128, y as Complex128]
      if (a.re === b.re && a.im === b.im) return true
    } else if (k1 !== 'invalid') {
      if (x === y) return true
    } else {
      // Neither is a basic kind: nil, maps and slices.
      if (x !== undefined && y !== undefined && kindOf(x) !== kindOf(y)) {
        throw new Error(`non-comparable types ${sprintf('%s', [x])}: ${typeName(x)}, ${typeName(y)}: ${formatValue(y)}`)
      }
      if (x === undefined || y === undefined) {
        if (x === y) return true
        continue
      }
      throw new Error(`non-comparable type ${sprintf('%s', [y])}: ${typeName(y)}`)
    }
  }
  return false
}

function lt(a: Value, b: Value): boolean {
  const x = indirect(a)
  const y = indirect(b)
  const k1 = basicKind(x)
  const k2 = basicKind(y)
  if (k1 === 'invalid' || k2 === 'invalid') throw new Error('invalid type for comparison')
  if (k1 !== k2) throw new Error('incompatible types for comparison')
  if (k1 === 'bool' || k1 === 'complex') throw new Error('invalid type for comparison')
  if (k1 === 'string') return compareStrings(x as string, y as string) < 0
  if (typeof x === 'number' || typeof y === 'number') return toNumber(x) < toNumber(y)
  return toInt(x) < toInt(y)
}

/** An int or uint8, exactly. */
function toInt(v: Value): bigint {
  return v instanceof Uint8 ? BigInt(v.value) : (v as bigint)
}

/** A number of the numeric kind, as a float64. */
function toNumber(v: Value): number {
  return v instanceof Uint8 ? v.value : Number(v)
}

/** html, js and urlquery: one string operand as it is, anything else as fmt.Sprint prints it (nil as "<no value>"). */
function evalArgs(args: Value[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0]
  return sprint(args.map((a) => (a === null || a === undefined ? '<no value>' : a)))
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '\0': '\uFFFD',
  '"': '&#34;',
  "'": '&#39;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
}

function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => HTML_ESCAPES[c] as string)
}

const JS_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '<': '\\u003C',
  '>': '\\u003E',
  '&': '\\u0026',
  '=': '\\u003D',
}

function jsEscape(s: string): string {
  return s.replace(/[\\'"<>&=\x00-\x1f]|[^\x00-\x7f]/gu, (c) => {
    const escaped = JS_ESCAPES[c]
    if (escaped) return escaped
    const cp = c.codePointAt(0) as number
    if (cp < 0x20) return `\\u00${cp.toString(16).toUpperCase().padStart(2, '0')}`
    return isPrint(c) ? c : `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`
  })
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols, and the ASCII space. */
function isPrint(c: string): boolean {
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(c)
}

/** url.QueryEscape: unreserved bytes as they are, space as '+', every other byte as %XX. */
function queryEscape(s: string): string {
  let out = ''
  for (const byte of utf8.encode(s)) {
    const c = String.fromCharCode(byte)
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c
    else if (c === ' ') out += '+'
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

const utf8 = new TextEncoder()
const utf8Decoder = new TextDecoder()

function isAscii(s: string): boolean {
  return /^[\x00-\x7f]*$/.test(s)
}

/** Go's len of a string: its UTF-8 bytes. */
function utf8Length(s: string): number {
  return isAscii(s) ? s.length : utf8.encode(s).length
}
