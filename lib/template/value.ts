/**
 * The data model: JSON as Go's text/template sees it after encoding/json
 * decoded it into interface{}, plus the template's own constants.
 *
 *   Go                          here
 *   invalid reflect.Value       undefined   (a missing map key; prints "<no value>")
 *   nil interface{}             null        (prints "<nil>")
 *   bool                        boolean
 *   float64 (every JSON number) number
 *   int (constants, len, ...)   bigint      (so %d, %T and comparisons can tell int from float64)
 *   string                      string
 *   []interface{}               Value[]
 *   map[string]interface{}      ValueMap    (own properties only; keys iterate sorted, as Go does)
 */
export type Value = undefined | null | boolean | number | bigint | string | Value[] | ValueMap

export interface ValueMap {
  [key: string]: Value
}

export type Kind = 'invalid' | 'nil' | 'bool' | 'float64' | 'int' | 'string' | 'slice' | 'map'

export function kindOf(v: Value): Kind {
  switch (typeof v) {
    case 'undefined':
      return 'invalid'
    case 'boolean':
      return 'bool'
    case 'number':
      return 'float64'
    case 'bigint':
      return 'int'
    case 'string':
      return 'string'
    default:
      if (v === null) return 'nil'
      return Array.isArray(v) ? 'slice' : 'map'
  }
}

/** Go's type name of a value, as %T and error messages print it. */
export function typeName(v: Value): string {
  switch (kindOf(v)) {
    case 'invalid':
    case 'nil':
      return '<nil>'
    case 'bool':
      return 'bool'
    case 'float64':
      return 'float64'
    case 'int':
      return 'int'
    case 'string':
      return 'string'
    case 'slice':
      return '[]interface {}'
    case 'map':
      return 'map[string]interface {}'
  }
}

export function isMap(v: Value): v is ValueMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A map's keys in Go's iteration order for printing and range: sorted by bytes. */
export function sortedKeys(m: ValueMap): string[] {
  return Object.keys(m).sort(compareStrings)
}

/** Go orders strings by their UTF-8 bytes, which is code-point order, not UTF-16's. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return codePointRank(x) - codePointRank(y)
  }
  return a.length - b.length
}

/** Surrogates stand for code points above U+FFFF, so they rank above U+E000-U+FFFF. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000
  return unit >= 0xe000 ? unit - 0x800 : unit
}

/** An own property of a map, never one of Object.prototype's. */
export function mapGet(m: ValueMap, key: string): Value {
  return Object.hasOwn(m, key) ? m[key] : undefined
}

export function mapHas(m: ValueMap, key: string): boolean {
  return Object.hasOwn(m, key)
}

/**
 * Go's truth (text/template's `truth`): false, 0, "", nil, and empty slices
 * and maps are false; an invalid value is not true.
 */
export function isTrue(v: Value): boolean {
  switch (kindOf(v)) {
    case 'invalid':
    case 'nil':
      return false
    case 'bool':
      return v as boolean
    case 'float64':
      return (v as number) !== 0
    case 'int':
      return (v as bigint) !== 0n
    case 'string':
      return (v as string).length > 0
    case 'slice':
      return (v as Value[]).length > 0
    case 'map':
      return Object.keys(v as ValueMap).length > 0
  }
}
