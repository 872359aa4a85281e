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
 *   complex128 (1i, 1+2i)       Complex128
 *   uint8 (index of a string)   Uint8
 */
export type Value =
  undefined | null | boolean | number | bigint | string | Value[] | ValueMap | Complex128 | Uint8 | Empty

export interface ValueMap {
  [key: string]: Value
}

/** The Go scalars JSON has no form for; never a map. */
abstract class Scalar {
  abstract readonly kind: 'uint8' | 'complex128' | 'empty'
  /** Go's truth: not zero. */
  abstract isTrue(): boolean
}

/** Go's complex128: a complex template constant (`1i`, `1+2i`). */
export class Complex128 extends Scalar {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {
    super()
  }

  get kind(): 'complex128' {
    return 'complex128'
  }

  isTrue(): boolean {
    return this.re !== 0 || this.im !== 0
  }
}

/** Go's uint8 (byte): what `index` gives of a string. */
export class Uint8 extends Scalar {
  private constructor(readonly value: number) {
    super()
  }

  static readonly #all: readonly Uint8[] = Array.from({ length: 256 }, (_, i) => new Uint8(i))

  /** The byte `b` (0 to 255). */
  static of(b: number): Uint8 {
    return Uint8.#all[b & 0xff] as Uint8
  }

  get kind(): 'uint8' {
    return 'uint8'
  }

  isTrue(): boolean {
    return this.value !== 0
  }
}

/**
 * Not Go's: the value of a function call that failed softly (a tool the
 * service could not reach). It prints as nothing, a field of it is itself
 * rather than an error, it is false, and functions and builtins given it see
 * the empty string. So a degraded call leaves a gap in the prompt, never a
 * broken render.
 */
export class Empty extends Scalar {
  private constructor() {
    super()
  }

  static readonly value = new Empty()

  get kind(): 'empty' {
    return 'empty'
  }

  isTrue(): boolean {
    return false
  }
}

export const EMPTY = Empty.value

export type Kind =
  'invalid' | 'nil' | 'bool' | 'float64' | 'int' | 'uint8' | 'complex128' | 'empty' | 'string' | 'slice' | 'map'

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
      if (Array.isArray(v)) return 'slice'
      return v instanceof Scalar ? v.kind : 'map'
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
    case 'uint8':
      return 'uint8'
    case 'complex128':
      return 'complex128'
    case 'string':
    case 'empty':
      return 'string'
    case 'slice':
      return '[]interface {}'
    case 'map':
      return 'map[string]interface {}'
  }
}

export function isMap(v: Value): v is ValueMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Scalar)
}

/** Strings compared natively, in halves, down to this many characters; then a character at a time. */
const COMPARED_AT_ONCE = 64

/**
 * Go orders strings by their UTF-8 bytes, which is code-point order, not
 * UTF-16's: they differ where the first different units are a surrogate and
 * a unit from U+E000. So the first difference is found natively, halving
 * the range that holds it (linear in all), and ranked by code point.
 */
export function compareStrings(a: string, b: string): number {
  let from = 0
  let to = Math.min(a.length, b.length)
  while (to - from > COMPARED_AT_ONCE) {
    const mid = (from + to) >>> 1
    if (a.slice(from, mid) === b.slice(from, mid)) from = mid
    else to = mid
  }
  for (let i = from; i < to; i++) {
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
export function mapHas(m: ValueMap, key: string): boolean {
  return Object.hasOwn(m, key)
}

/**
 * Go's truth (text/template's `truth`): false, 0, "", nil, and empty slices
 * and maps are false; an invalid value is not true.
 */
export function isTrue(v: Value): boolean {
  switch (typeof v) {
    case 'undefined':
      return false
    case 'boolean':
      return v
    case 'number':
      return v !== 0
    case 'bigint':
      return v !== 0n
    case 'string':
      return v.length > 0
    default:
      if (v === null) return false
      if (Array.isArray(v)) return v.length > 0
      if (v instanceof Scalar) return v.isTrue()
      return Object.keys(v).length > 0
  }
}

/** A byte (index of a string) as the int it is worth, for a function the caller supplies: they take ints as bigints. */
export function numberLike(v: Value): Value {
  return v instanceof Uint8 ? BigInt(v.value) : v
}

/** Go's indirectInterface, as after each command: a nil interface{} is the invalid value. */
export function indirectInterface(v: Value): Value {
  return v === null ? undefined : v
}

/** Passed to an interface{} parameter, the invalid value is nil (and EMPTY the empty string). */
export function nilForInterface(v: Value): Value {
  return v === undefined ? null : emptyAsString(v)
}

/** What a function or builtin given a soft failure's value sees. */
export function emptyAsString(v: Value): Value {
  return v === EMPTY ? '' : v
}
