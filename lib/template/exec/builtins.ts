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
import { htmlEscape, jsEscape, queryEscape } from './escape'
import { formatValue, sprint, sprintf, sprintln } from '../fmt'
import { fromUtf8 } from '../fmt/utf8'
import type { Builtin, Call, Work } from './run'
import { Complex128, Uint8, compareStrings, indirectInterface, isMap, kindOf, mapHas, typeName } from '../value'
import type { Value } from '../value'

function fixed(arity: number, call: Call, raw = true): Builtin {
  return { arity, variadic: false, raw, call }
}

function variadic(arity: number, call: Call, raw = true): Builtin {
  return { arity, variadic: true, raw, call }
}

/** `and` and `or` never reach `call`: the executor evaluates them lazily. */
const shortCircuit = (): Value => {
  throw new Error('unreachable')
}

export const BUILTINS: Readonly<Record<string, Builtin>> = {
  and: variadic(1, shortCircuit),
  or: variadic(1, shortCircuit),
  not: fixed(1, ([a], w) => !w.truth(a)),
  len: fixed(1, ([a], w) => length(a, w)),
  index: variadic(1, ([item, ...indexes], w) => index(item, indexes, w)),
  slice: variadic(1, ([item, ...indexes], w) => slice(item, indexes, w)),
  call: variadic(1, ([fn]) => call(fn)),
  print: variadic(0, (args, w) => sprint(args, w.limits), false),
  printf: {
    ...variadic(1, ([format, ...args], w) => sprintf(format as string, args, w.limits), false),
    params: ['string'],
  },
  println: variadic(0, (args, w) => sprintln(args, w.limits), false),
  html: variadic(0, (args, w) => htmlEscape(evalArgs(args, w), w.limits), false),
  js: variadic(0, (args, w) => jsEscape(evalArgs(args, w), w.limits), false),
  urlquery: variadic(0, (args, w) => queryEscape(evalArgs(args, w), w.limits), false),
  eq: variadic(1, ([a, ...bs], w) => eq(a, bs, w)),
  ne: fixed(2, ([a, b], w) => !eq(a, [b], w)),
  lt: fixed(2, ([a, b], w) => lt(a, b, w)),
  le: fixed(2, ([a, b], w) => lt(a, b, w) || eq(a, [b], w)),
  gt: fixed(2, ([a, b], w) => !(lt(a, b, w) || eq(a, [b], w))),
  ge: fixed(2, ([a, b], w) => !lt(a, b, w)),
}

function length(v: Value, w: Work): bigint {
  if (v === null) throw new Error('len of nil pointer')
  if (v === undefined) throw new Error('reflect: call of reflect.Value.Type on zero Value')
  if (typeof v === 'string') return BigInt(w.bytes(v)?.length ?? v.length)
  if (Array.isArray(v)) return BigInt(v.length)
  if (isMap(v)) return BigInt(w.size(v))
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

function index(item: Value, indexes: Value[], w: Work): Value {
  let v = indirectInterface(item)
  if (v === undefined) throw new Error('index of untyped nil')
  for (const raw of indexes) {
    const i = indirectInterface(raw)
    if (v === null) throw new Error('index of nil pointer')
    if (typeof v === 'string') {
      const bytes = w.bytes(v)
      const len = bytes ? bytes.length : v.length
      const x = indexArg(i, len)
      if (x === len) throw new Error('reflect: string index out of range')
      v = Uint8.of(bytes ? (bytes[x] as number) : v.charCodeAt(x))
    } else if (Array.isArray(v)) {
      const x = indexArg(i, v.length)
      if (x === v.length) throw new Error('reflect: slice index out of range')
      v = v[x]
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

function slice(item: Value, indexes: Value[], w: Work): Value {
  const v = indirectInterface(item)
  if (v === undefined) throw new Error('slice of untyped nil')
  if (indexes.length > 3) throw new Error(`too many slice indexes: ${indexes.length}`)
  let len: number
  let bytes: Uint8Array | undefined
  if (typeof v === 'string') {
    if (indexes.length === 3) throw new Error('cannot 3-index slice a string')
    bytes = w.bytes(v)
    len = bytes ? bytes.length : v.length
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
  w.charge(to - from)
  if (Array.isArray(v)) return v.slice(from, to)
  return bytes ? fromUtf8(bytes.subarray(from, to)) : (v as string).slice(from, to)
}

function call(fn: Value): Value {
  const f = indirectInterface(fn)
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

function eq(a: Value, others: Value[], w: Work): boolean {
  const x = indirectInterface(a)
  if (others.length === 0) throw new Error('missing argument for comparison')
  const k1 = basicKind(x)
  for (const other of others) {
    const y = indirectInterface(other)
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
      if (k1 === 'string') w.charge(Math.min((x as string).length, (y as string).length))
      if (x === y) return true
    } else {
      // Neither is a basic kind: nil, maps and slices.
      if (x !== undefined && y !== undefined && kindOf(x) !== kindOf(y)) {
        throw new Error(
          `non-comparable types ${sprintf('%s', [x], w.limits)}: ${typeName(x)}, ${typeName(y)}: ${formatValue(y, w.limits)}`,
        )
      }
      if (x === undefined || y === undefined) {
        if (x === y) return true
        continue
      }
      throw new Error(`non-comparable type ${sprintf('%s', [y], w.limits)}: ${typeName(y)}`)
    }
  }
  return false
}

function lt(a: Value, b: Value, w: Work): boolean {
  const x = indirectInterface(a)
  const y = indirectInterface(b)
  const k1 = basicKind(x)
  const k2 = basicKind(y)
  if (k1 === 'invalid' || k2 === 'invalid') throw new Error('invalid type for comparison')
  if (k1 !== k2) throw new Error('incompatible types for comparison')
  if (k1 === 'bool' || k1 === 'complex') throw new Error('invalid type for comparison')
  if (k1 === 'string') {
    w.charge(Math.min((x as string).length, (y as string).length))
    return compareStrings(x as string, y as string) < 0
  }
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
function evalArgs(args: Value[], w: Work): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0]
  return sprint(
    args.map((a) => (a === null || a === undefined ? '<no value>' : a)),
    w.limits,
  )
}
