/**
 * Sprig's string helpers (strings.go, functions.go), as Go's strings package
 * computes them, and `fence`. Each result's length is known, and refused past
 * the output limit, before the result is built; the work is counted before
 * any loop, bounded by the text it reads.
 */
import { BUILD_COST } from '../costs'
import { tooLong } from '../errors'
import { quoteWithin } from '../fmt/quote'
import { isPairAt, runeCount } from '../fmt/utf8'
import type { Work } from '../exec/run'
import type { Value } from '../value'
import { PIECE_COST, strval, within } from './work'

/** unicode.IsSpace: Go's White_Space, which has U+0085 and not U+FEFF (JavaScript's trim() has it the other way round). */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d)
  if (c < 0x85) return false
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  )
}

/** strings.TrimSpace. */
export function trim(s: string, w: Work): string {
  let from = 0
  let to = s.length
  while (from < to && isSpace(s.charCodeAt(from))) from++
  while (to > from && isSpace(s.charCodeAt(to - 1))) to--
  w.charge(from + s.length - to)
  if (from === 0 && to === s.length) return s
  within(to - from, w)
  return s.slice(from, to)
}

/**
 * Sprig's trunc, by runes where Sprig cuts bytes (and so can split a rune):
 * the first n runes, or with n < 0 the last -n; the text itself when it has
 * no more.
 */
export function trunc(n: number, s: string, w: Work): string {
  const keep = Math.abs(n)
  // Fewer UTF-16 units than that, fewer runes.
  if (s.length <= keep) return s
  w.charge(keep)
  let from = 0
  let to = s.length
  if (n >= 0) {
    to = 0
    for (let k = 0; k < keep && to < s.length; k++) to += isPairAt(s, to) ? 2 : 1
  } else {
    from = s.length
    for (let k = 0; k < keep && from > 0; k++) from -= from >= 2 && isPairAt(s, from - 2) ? 2 : 1
  }
  if (to - from === s.length) return s
  within(to - from, w)
  return s.slice(from, to)
}

/** Sprig's indent (each line after `n` spaces), after `prefix` (nindent's newline). */
export function indent(n: number, s: string, w: Work, prefix = ''): string {
  if (n < 0) throw new Error('strings: negative Repeat count')
  w.charge(s.length)
  let lines = 1
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) lines++
  within(prefix.length + s.length + n * lines, w)
  w.charge(PIECE_COST * lines + prefix.length + s.length + n * lines)
  const pad = ' '.repeat(n)
  return prefix + pad + s.replaceAll('\n', '\n' + pad)
}

/** strings.Replace(s, old, new, -1): an empty `old` matches before each rune and at the end. */
export function replace(old: string, replacement: string, s: string, w: Work): string {
  if (old === replacement) return s
  w.charge(s.length)
  let count: number
  if (old === '') {
    count = runeCount(s) + 1
  } else {
    count = 0
    for (let i = s.indexOf(old); i !== -1; i = s.indexOf(old, i + old.length)) count++
  }
  if (count === 0) return s
  const length = s.length + count * (replacement.length - old.length)
  within(length, w)
  w.charge(PIECE_COST * count + length)
  if (old !== '') return s.split(old).join(replacement)
  return replacement + Array.from(s, (rune) => rune + replacement).join('')
}

/** strings.Contains, HasPrefix and HasSuffix, with Sprig's order of operands: the part, then the text. */
export function contains(part: string, s: string, w: Work): boolean {
  w.charge(s.length)
  return s.includes(part)
}

export function hasPrefix(part: string, s: string, w: Work): boolean {
  w.charge(part.length)
  return s.startsWith(part)
}

export function hasSuffix(part: string, s: string, w: Work): boolean {
  w.charge(part.length)
  return s.endsWith(part)
}

/**
 * A Markdown code block of `text`: its fence is at least three backticks,
 * and longer than any run of backticks in the text, so nothing in the text
 * can close it.
 */
export function fence(lang: string, text: string, w: Work): string {
  w.charge(text.length)
  let longest = 0
  const runs = /`+/g
  for (let m = runs.exec(text); m !== null; m = runs.exec(text)) longest = Math.max(longest, m[0].length)
  const ticks = Math.max(3, longest + 1)
  within(2 * ticks + lang.length + text.length + 2, w)
  const bar = '`'.repeat(ticks)
  return `${bar}${lang}\n${text}\n${bar}`
}

/** Sprig's join: strslice(list) joined by sep; strslice skips a list's nils, and makes any other value a list of one. */
export function join(sep: string, list: Value, w: Work): string {
  const items = Array.isArray(list) ? list : list === null || list === undefined ? [] : [list]
  w.charge(PIECE_COST * items.length)
  let out = ''
  let first = true
  for (const item of items) {
    if (item === null || item === undefined) continue
    const piece = strval(item, w)
    const glue = first ? '' : sep
    within(out.length + glue.length + piece.length, w)
    out += glue + piece
    first = false
  }
  w.charge(out.length)
  return out
}

/** Sprig's quote: each operand but nil as %q prints its strval, separated by spaces. */
export function quote(args: readonly Value[], w: Work): string {
  const max = w.limits.maxLength
  w.charge(PIECE_COST * args.length)
  let out = ''
  let first = true
  for (const arg of args) {
    if (arg === null || arg === undefined) continue
    const s = strval(arg, w)
    const glue = first ? '' : ' '
    w.charge(s.length)
    const quoted = quoteWithin(s, false, max - out.length - glue.length)
    if (quoted === undefined) throw tooLong(max)
    w.charge(BUILD_COST * (quoted.length - s.length))
    out += glue + quoted
    first = false
  }
  return out
}
