/**
 * strings.ToUpper and strings.ToLower: Go maps each rune by itself, by
 * Unicode's simple case mapping (unicode.ToUpper), one rune to one rune.
 * JavaScript's toUpperCase and toLowerCase use the full mapping instead,
 * which turns a few runes into several (ß into SS, ﬁ into FI, İ into i̇) and
 * lowers a final Σ into ς: those few are mapped here as Go maps them, the
 * rest natively. No simple mapping leaves its plane, so the result is as
 * long as the text, in UTF-16 as in runes.
 */
import type { Work } from '../exec/run'
import { PIECE_COST, within } from './work'

/**
 * Runes whose full uppercase is several, in runs: ß, ŉ, ǰ, ΐ, ΰ, և, ẖ-ẚ,
 * Greek with a breathing, accent or iota subscript, and the Latin and
 * Armenian ligatures. A test lists them all from the JS engine's own tables.
 */
const MULTI_UPPER =
  /([\u00df\u0149\u01f0\u0390\u03b0\u0587\u1e96-\u1e9a\u1f50\u1f52\u1f54\u1f56\u1f80-\u1faf\u1fb2-\u1fb4\u1fb6\u1fb7\u1fbc\u1fc2-\u1fc4\u1fc6\u1fc7\u1fcc\u1fd2\u1fd3\u1fd6\u1fd7\u1fe2-\u1fe4\u1fe6\u1fe7\u1ff2-\u1ff4\u1ff6\u1ff7\u1ffc\ufb00-\ufb06\ufb13-\ufb17])/

/** İ, whose full lowercase is i and a combining dot, and Σ, which JS lowers by its context. */
const SPECIAL_LOWER = /([\u0130\u03a3])/

/**
 * The simple uppercase of a rune whose full one is several: itself, but for
 * the lowercase Greek letters with an iota subscript, whose simple uppercase
 * is the titlecase letter (ᾳ is ᾼ, where the full one is ΑΙ).
 */
function simpleUpper(c: string): string {
  const r = c.charCodeAt(0)
  const block = r & ~0xf
  if ((block === 0x1f80 || block === 0x1f90 || block === 0x1fa0) && (r & 0xf) < 8) return String.fromCharCode(r + 8)
  if (r === 0x1fb3 || r === 0x1fc3 || r === 0x1ff3) return String.fromCharCode(r + 9)
  return c
}

/** The simple lowercase of İ and Σ: i and σ, whatever follows. */
function simpleLower(c: string): string {
  return c === '\u0130' ? 'i' : '\u03c3'
}

export function upper(s: string, w: Work): string {
  return mapCase(s, w, MULTI_UPPER, (t) => t.toUpperCase(), simpleUpper)
}

export function lower(s: string, w: Work): string {
  return mapCase(s, w, SPECIAL_LOWER, (t) => t.toLowerCase(), simpleLower)
}

/** s mapped natively between the runes `special` finds, and those runes by `simple`. */
function mapCase(
  s: string,
  w: Work,
  special: RegExp,
  native: (t: string) => string,
  simple: (c: string) => string,
): string {
  within(s.length, w)
  // The search and the mapping each read the text.
  w.charge(2 * s.length)
  if (!special.test(s)) return native(s)
  // Split around a capturing group: the special runes are the odd pieces.
  const pieces = s.split(special)
  w.charge(PIECE_COST * pieces.length)
  let out = ''
  for (let i = 0; i < pieces.length; i++) out += i % 2 === 1 ? simple(pieces[i] as string) : native(pieces[i] as string)
  return out
}
