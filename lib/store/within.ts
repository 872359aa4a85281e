import { utf8Length } from '../template'
import type { Within } from './types'

/** The size of a key that holds no string value (MGET reads null there): it counts 0 bytes. */
export const NONE = -1

/** Keys per MGET of the script: Lua's unpack pushes each argument on a stack of bounded depth. */
const MGET_BATCH = 500

/**
 * The script of a read within a budget, run by EVAL with the keys as KEYS and
 * the budget as ARGV[1]; its result is read by `withinAnswer`. It sums the
 * UTF-8 bytes (STRLEN) of the string values of KEYS, NONE for a key
 * that holds none: missing, or of another type, which MGET reads as null.
 * Within ARGV[1] bytes it answers {1, the MGET of KEYS}; past it, {0, the
 * sizes}. Redis runs a script alone, so the sizes are those of the values it
 * answers.
 */
export const WITHIN_SCRIPT = `
local most, sizes, total = tonumber(ARGV[1]), {}, 0
for i, key in ipairs(KEYS) do
  local size = redis.pcall('STRLEN', key)
  if type(size) ~= 'number' or (size == 0 and redis.call('TYPE', key).ok ~= 'string') then size = ${NONE} end
  sizes[i] = size
  if size > 0 then total = total + size end
end
if total > most then return {0, sizes} end
local values = {}
for first = 1, #KEYS, ${MGET_BATCH} do
  local batch = redis.call('MGET', unpack(KEYS, first, math.min(first + ${MGET_BATCH} - 1, #KEYS)))
  for _, value in ipairs(batch) do values[#values + 1] = value end
end
return {1, values}
`

/** The script's result as a Within. */
export function withinAnswer(result: unknown): Within {
  const [within, items] = result as [number, unknown[]]
  // MGET's false (no string at the key) arrives as null.
  if (within === 1) return { within: true, values: items.map((v) => (v === null ? null : String(v))) }
  return { within: false, sizes: items.map(Number) }
}

/** `values` as a Within of `maxBytes`, for a store that holds them already (in memory, in a cache). */
export function measured(values: readonly (string | null)[], maxBytes: number): Within {
  const sizes = values.map((v) => (v === null ? NONE : utf8Length(v, 0, v.length)))
  return total(sizes) <= maxBytes ? { within: true, values: [...values] } : { within: false, sizes }
}

/** The bytes of `sizes` together. */
export function total(sizes: readonly number[]): number {
  return sizes.reduce((sum, size) => sum + Math.max(0, size), 0)
}

/** The index of the size with which `sizes` pass `maxBytes`, or -1 where they hold at most it. */
export function passedAt(sizes: readonly number[], maxBytes: number): number {
  let sum = 0
  return sizes.findIndex((size) => (sum += Math.max(0, size)) > maxBytes)
}
