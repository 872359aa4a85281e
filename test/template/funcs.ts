import { sprint } from '../../lib/template/fmt'
import type { TemplateFunction, Value } from '../../lib/template'
import { typeName } from '../../lib/template/value'

const wrongType = (want: string, v: Value) => new Error(`wrong type for value; expected ${want}; got ${typeName(v)}`)
function arity(name: string, want: number, args: unknown[], variadic = false): void {
  if (variadic ? args.length < want : args.length !== want) {
    throw new Error(`wrong number of args for ${name}: want ${variadic ? 'at least ' : ''}${want} got ${args.length}`)
  }
}
/**
 * The test functions of test/template/oracle/main.go, with the same behaviour
 * on the values JS can pass, arity included (JS functions check their own):
 * the differential suite's (test/unit/template/differential.test.ts) and the
 * engine bench's over its cases (bench/suite.ts).
 */
export const FUNCS: Record<string, TemplateFunction> = {
  add: (...args) => {
    arity('add', 2, args)
    const [a, b] = args
    for (const v of [a, b]) if (typeof v !== 'number' && typeof v !== 'bigint') throw wrongType('float64', v)
    return Number(a) + Number(b)
  },
  echo: (...args) => {
    arity('echo', 1, args)
    return args[0]
  },
  join: (...args) => {
    arity('join', 1, args, true)
    const [sep, ...xs] = args
    if (typeof sep !== 'string') throw wrongType('string', sep)
    return xs.map((x) => sprint([x])).join(sep)
  },
  fail: (...args) => {
    arity('fail', 1, args)
    throw new Error(String(args[0]))
  },
  // Go converts a whole constant such as 2.0 to the int parameter; a computed float64 it refuses,
  // which JS cannot tell apart: a whole number is taken either way.
  count: (...args) => {
    arity('count', 1, args)
    const [n] = args
    if (typeof n !== 'bigint' && !(typeof n === 'number' && Number.isInteger(n))) throw wrongType('int', n)
    return Array.from({ length: Math.max(0, Number(n)) }, (_, i) => i)
  },
  dict: (...kv) => {
    if (kv.length % 2 !== 0) throw new Error(`dict: odd number of arguments: ${kv.length}`)
    const out: Record<string, Value> = {}
    for (let i = 0; i < kv.length; i += 2) {
      const key = kv[i]
      if (typeof key !== 'string') throw new Error(`dict: key at position ${i} is ${typeName(key)}, not string`)
      Object.defineProperty(out, key, { value: kv[i + 1], enumerable: true, writable: true, configurable: true })
    }
    return out
  },
  // strings.ToUpper maps rune by rune (simple case mapping): ß stays ß, where JS gives SS.
  upper: (...args) => {
    arity('upper', 1, args)
    const [s] = args
    if (typeof s !== 'string') throw wrongType('string', s)
    return [...s].map((c) => (c.toUpperCase().length === c.length ? c.toUpperCase() : c)).join('')
  },
  zero: (...args) => {
    arity('zero', 0, args)
    return null
  },
}
