/**
 * The escaping builtins (Go's text/template funcs.go: HTMLEscapeString,
 * JSEscapeString, and net/url's QueryEscape), bounded: the result never grows
 * past the output limit, and the work is counted as it goes.
 */
import { BUILD_COST, ESCAPE_ASK_COST, ESCAPE_READ_COST } from '../costs'
import { tooLong } from '../errors'
import type { FormatLimits } from '../fmt'
import { isPrint } from '../fmt/isprint'
import { appendRune, isPairAt, runeAt } from '../fmt/utf8'

/**
 * s with some of its characters escaped, never longer than maxOutput: the
 * result's length is known at each escape, before the result is joined.
 * `plain` is true of the ASCII characters that stay as they are; `escape`
 * gives the escape of the character (or surrogate pair) at s[i], or
 * undefined when it stays too; it is not asked about non-ASCII characters
 * when `nonAsciiPlain`.
 */
function escapeEach(
  s: string,
  limits: FormatLimits,
  plain: Uint8Array,
  escape: (s: string, i: number) => string | undefined,
  nonAsciiPlain = false,
): string {
  limits.charge?.(ESCAPE_READ_COST * s.length)
  const max = limits.maxLength
  // Joined as it goes: the engine concatenates without copying, where joining an array of pieces copies them.
  let out = ''
  let length = s.length
  let start = 0
  let asked = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80 ? plain[c] === 1 : nonAsciiPlain) continue
    asked++
    const escaped = escape(s, i)
    const width = isPairAt(s, i) ? 2 : 1
    if (escaped !== undefined) {
      length += escaped.length - width
      if (length > max) throw tooLong(max)
      if (i > start) out += s.slice(start, i)
      out += escaped
      start = i + width
    }
    i += width - 1
  }
  limits.charge?.(ESCAPE_ASK_COST * asked + BUILD_COST * (length - s.length))
  if (start === 0) return s
  return out + s.slice(start)
}

/** The ASCII characters for which `keep` is true. */
function asciiWhere(keep: (c: number) => boolean): Uint8Array {
  return Uint8Array.from({ length: 0x80 }, (_, c) => (keep(c) ? 1 : 0))
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '\0': '\uFFFD',
  '"': '&#34;',
  "'": '&#39;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
}

const HTML_PLAIN = asciiWhere((c) => !Object.hasOwn(HTML_ESCAPES, String.fromCharCode(c)))

/** template.HTMLEscapeString. */
export function htmlEscape(s: string, limits: FormatLimits): string {
  return escapeEach(s, limits, HTML_PLAIN, (t, i) => HTML_ESCAPES[t[i] as string], true)
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

/** Go's jsIsSpecial, negated for ASCII: every non-ASCII rune is looked at. */
const JS_PLAIN = asciiWhere((c) => c >= 0x20 && !Object.hasOwn(JS_ESCAPES, String.fromCharCode(c)))

/** template.JSEscapeString: a non-printable rune (by Go's tables) as \uXXXX, a control character as \u00XX. */
export function jsEscape(s: string, limits: FormatLimits): string {
  return escapeEach(s, limits, JS_PLAIN, (t, i) => {
    const c = t.charCodeAt(i)
    if (c < 0x20) return `\\u00${hex(c, 2)}`
    if (c < 0x80) return JS_ESCAPES[t[i] as string]
    // A lone surrogate is what Go's JSON decoder makes of it: U+FFFD, which is printable.
    const r = runeAt(t, i)
    if (isPrint(r)) return r === 0xfffd && c !== 0xfffd ? '\ufffd' : undefined
    return `\\u${hex(r, 4)}`
  })
}

const QUERY_PLAIN = asciiWhere((c) => /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(c)))

/** url.QueryEscape: unreserved bytes as they are, space as '+', every other byte of the UTF-8 as %XX. */
export function queryEscape(s: string, limits: FormatLimits): string {
  return escapeEach(s, limits, QUERY_PLAIN, (t, i) => {
    if (t.charCodeAt(i) === 0x20) return '+'
    const bytes: number[] = []
    appendRune(bytes, runeAt(t, i))
    let out = ''
    for (const b of bytes) out += PERCENT[b]
    return out
  })
}

function hex(n: number, width: number): string {
  return n.toString(16).toUpperCase().padStart(width, '0')
}

/** %XX of every byte. */
const PERCENT: readonly string[] = Array.from({ length: 256 }, (_, b) => `%${hex(b, 2)}`)
