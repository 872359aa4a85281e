/**
 * Sprig's toJson and toPrettyJson: json.Marshal(v) and
 * json.MarshalIndent(v, "", "  ") as Go 1.19's encoding/json writes them:
 * map keys in byte order; `<`, `>`, `&`, U+2028 and U+2029 escaped, and
 * control characters but \n, \r and \t as \u00XX; float64s in the shortest
 * form that reads back, with an exponent from 1e21 and below 1e-6; ints
 * exactly. Sprig ignores Marshal's error: a value JSON has no form for (a
 * complex constant) makes "". The result is bounded by the output limit as
 * it is built, and the data by maxDataDepth.
 */
import { BUILD_COST } from '../costs'
import { LimitReached } from '../errors'
import { Formatter } from '../fmt/format'
import type { Work } from '../exec/run'
import { Complex128, Uint8, isMap } from '../value'
import type { Value, ValueMap } from '../value'

/** Marshal's error: the value has no JSON form. */
class Unsupported extends Error {}

export function toJson(v: Value, w: Work, pretty: boolean): string {
  const out = new Formatter(w.limits)
  try {
    new Encoder(out, w, pretty).value(v, 0)
  } catch (e) {
    if (e instanceof Unsupported) return ''
    throw e
  }
  // The strings' characters were counted as they were read.
  w.charge(BUILD_COST * (out.buf.length - out.copied))
  return out.buf
}

/** What JSON.stringify writes that encoding/json writes otherwise: an escaped backslash is matched to be skipped. */
const REWRITTEN = /\\[\\bf]|\\ud[89a-f][0-9a-f]{2}|[<>&\u2028\u2029]/g
const REWRITES: Readonly<Record<string, string>> = {
  '\\\\': '\\\\',
  '\\b': '\\u0008',
  '\\f': '\\u000c',
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}

class Encoder {
  constructor(
    private readonly out: Formatter,
    private readonly w: Work,
    private readonly pretty: boolean,
  ) {}

  value(v: Value, depth: number): void {
    switch (typeof v) {
      case 'string':
        return this.string(v)
      case 'number':
        if (!Number.isFinite(v)) throw new Unsupported()
        // JavaScript's shortest form switches to an exponent where encoding/json does, and writes it as
        // encoding/json cleans it (1e-7, 1e+21); only -0 it writes as 0.
        return this.out.put(Object.is(v, -0) ? '-0' : String(v))
      case 'bigint':
        return this.out.put(BigInt.asIntN(64, v).toString())
      case 'boolean':
        return this.out.put(v ? 'true' : 'false')
      case 'undefined':
        return this.out.put('null')
    }
    if (v === null) this.out.put('null')
    else if (Array.isArray(v)) this.list(v, depth + 1)
    else if (v instanceof Uint8) this.out.put(String(v.value))
    else if (v instanceof Complex128) throw new Unsupported()
    else if (isMap(v)) this.map(v, depth + 1)
    // A soft failure's value is the empty string it stands for.
    else this.string('')
  }

  private nest(depth: number): void {
    const max = this.w.limits.maxDepth
    if (depth > max) throw new LimitReached('maxDataDepth', `data nested deeper than ${max} levels`)
  }

  private list(a: readonly Value[], depth: number): void {
    this.nest(depth)
    if (a.length === 0) return this.out.put('[]')
    this.out.put('[')
    for (let i = 0; i < a.length; i++) {
      if (i > 0) this.out.put(',')
      this.newline(depth)
      this.value(a[i], depth)
    }
    this.newline(depth - 1)
    this.out.put(']')
  }

  private map(m: ValueMap, depth: number): void {
    this.nest(depth)
    const keys = this.w.limits.sortedKeys(m)
    if (keys.length === 0) return this.out.put('{}')
    this.out.put('{')
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string
      if (i > 0) this.out.put(',')
      this.newline(depth)
      this.string(key)
      this.out.put(this.pretty ? ': ' : ':')
      this.value(m[key], depth)
    }
    this.newline(depth - 1)
    this.out.put('}')
  }

  /** MarshalIndent's line break, and two spaces a level. */
  private newline(depth: number): void {
    if (!this.pretty) return
    this.out.reserve(1 + 2 * depth)
    this.out.buf += '\n' + '  '.repeat(depth)
  }

  /** A JSON string, natively, rewritten where Go writes otherwise; refused before it is built past the limit. */
  private string(s: string): void {
    this.w.charge(s.length)
    // An escape is 6 characters at most: count exactly only when that much could pass the limit.
    const room = this.w.limits.maxLength - this.out.buf.length
    if (6 * s.length + 2 > room) this.out.reserve(escapedLength(s))
    this.out.put(JSON.stringify(s).replace(REWRITTEN, (m) => REWRITES[m] ?? '\ufffd'))
    this.out.copied += s.length
  }
}

/** The length of s as encoding/json writes it, quotes included; a lone surrogate is U+FFFD, as it is to Go. */
function escapedLength(s: string): number {
  let n = 2
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20) n += c === 0x0a || c === 0x0d || c === 0x09 ? 2 : 6
    else if (c === 0x22 || c === 0x5c) n += 2
    else if (c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) n += 6
    else n++
  }
  return n
}
