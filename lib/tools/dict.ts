import { setOwn } from '../json'
import type { TemplateFunction, Value, ValueMap } from '../template'

/**
 * `dict "key" value ...`: a map from alternating keys and values, for passing
 * a tool its parameters by name: `{{lookup (dict "symbol" .name "limit" 5)}}`.
 */
export const dict: TemplateFunction = (...kv) => {
  if (kv.length % 2 !== 0) throw new Error(`dict needs key and value pairs, got ${kv.length} operands`)
  const out: ValueMap = {}
  for (let i = 0; i < kv.length; i += 2) {
    const key = kv[i]
    if (typeof key !== 'string') throw new Error(`dict key ${i / 2 + 1} is not a string`)
    setOwn(out, key, kv[i + 1] as Value)
  }
  return out
}
