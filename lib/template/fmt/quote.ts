/** strconv.Quote and its relatives (Go's strconv/quote.go). */
import { isPrint } from './isprint'
import { runeAt } from './utf8'

/** strconv.Quote, or strconv.QuoteToASCII when asciiOnly. */
export function quote(s: string, asciiOnly = false): string {
  return quoteWithin(s, asciiOnly, Infinity) as string
}

/** quote, or undefined as soon as the result would be longer than `maxLength` characters. */
export function quoteWithin(s: string, asciiOnly: boolean, maxLength: number): string | undefined {
  if (s.length + 2 > maxLength) return undefined
  let out = '"'
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // Printable ASCII other than the quote and the backslash is copied as is, and so is any
    // other printable rune unless asciiOnly.
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) continue
    const r = runeAt(s, i)
    // (A lone surrogate is not copied: it reads as U+FFFD.)
    if (c >= 0x80 && !asciiOnly && (r === c || r > 0xffff) && isPrint(r)) {
      if (r > 0xffff) i++
      continue
    }
    if (i > start) out += s.slice(start, i)
    if (r > 0xffff) i++
    out += escapeRune(r, 0x22, asciiOnly)
    start = i + 1
    // An escape makes the result longer than the text: what is left is at least as long again.
    if (out.length + s.length - start + 1 > maxLength) return undefined
  }
  if (start === 0) return '"' + s + '"'
  return out + s.slice(start) + '"'
}

/** strconv.QuoteRune, or strconv.QuoteRuneToASCII when asciiOnly. */
export function quoteRune(r: number, asciiOnly: boolean): string {
  if (r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) r = 0xfffd
  return "'" + escapeRune(r, 0x27, asciiOnly) + "'"
}

function escapeRune(r: number, q: number, asciiOnly: boolean): string {
  if (r === q || r === 0x5c) return '\\' + String.fromCharCode(r)
  if (asciiOnly) {
    if (r < 0x80 && isPrint(r)) return String.fromCharCode(r)
  } else if (isPrint(r)) {
    return String.fromCodePoint(r)
  }
  switch (r) {
    case 0x07:
      return '\\a'
    case 0x08:
      return '\\b'
    case 0x0c:
      return '\\f'
    case 0x0a:
      return '\\n'
    case 0x0d:
      return '\\r'
    case 0x09:
      return '\\t'
    case 0x0b:
      return '\\v'
  }
  if (r < 0x20 || r === 0x7f) return '\\x' + hex(r, 2)
  if (r < 0x10000) return '\\u' + hex(r, 4)
  return '\\U' + hex(r, 8)
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0')
}

/** strconv.CanBackquote. */
export function canBackquote(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x80) {
      if (c === 0xfeff) return false // BOMs are invisible
      continue
    }
    if ((c < 0x20 && c !== 0x09) || c === 0x60 || c === 0x7f) return false
  }
  return true
}
