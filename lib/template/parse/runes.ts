/**
 * Rune classes and rune formatting the lexer needs (Go's unicode and fmt,
 * as much of them as lex.go uses). A rune is a code point.
 */
import { isPrint } from '../fmt/isprint'

// Code points the lexer looks for.
export const NL = 0x0a
export const BACKSLASH = 0x5c

// isSpace reports whether r is a space character.
export function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09 || r === 0x0d || r === NL
}

const letterOrDigit = /^[\p{L}\p{Nd}]$/u

// isAlphaNumeric reports whether r is an alphabetic, digit, or underscore.
export function isAlphaNumeric(r: number): boolean {
  if (r < 0x80) {
    return r === 0x5f || (0x61 <= r && r <= 0x7a) || (0x41 <= r && r <= 0x5a) || (0x30 <= r && r <= 0x39)
  }
  return letterOrDigit.test(String.fromCodePoint(r))
}

// containsRune reports whether the ASCII string valid contains r.
export function containsRune(valid: string, r: number): boolean {
  for (let i = 0; i < valid.length; i++) {
    if (valid.charCodeAt(i) === r) return true
  }
  return false
}

// countNewlines counts the newlines in input[start:end], reading no further (a search would read to the next one).
export function countNewlines(input: string, start: number, end: number): number {
  let n = 0
  for (let i = start; i < end; i++) if (input.charCodeAt(i) === NL) n++
  return n
}

// Messages: fmt's %#U and %q.

// Longest text a message quotes whole: a template's text can be a megabyte, a message cannot.
const QUOTED_MAX = 64

// formatRune formats r as fmt's %#U does: U+0029 ')', or U+0001 if r is not printable.
export function formatRune(r: number): string {
  const hex = `U+${r.toString(16).toUpperCase().padStart(4, '0')}`
  return isPrint(r) ? `${hex} '${String.fromCodePoint(r)}'` : hex
}

// quoteShort quotes s as %q, or its first QUOTED_MAX characters as %.64q followed by "...".
export function quoteShort(s: string): string {
  return s.length <= QUOTED_MAX ? quote(s) : `${quote(s.slice(0, QUOTED_MAX))}...`
}

// short is s as it is, or its first QUOTED_MAX characters followed by "...", for messages that do not quote.
export function short(s: string): string {
  return s.length <= QUOTED_MAX ? s : `${s.slice(0, QUOTED_MAX)}...`
}

// quote quotes s as fmt's %q (strconv.Quote) does.
export function quote(s: string): string {
  let out = '"'
  for (const ch of s) {
    const r = ch.codePointAt(0) as number
    if (r === 0x22 || r === BACKSLASH) {
      out += `\\${ch}`
    } else if (isPrint(r)) {
      out += ch
    } else {
      switch (r) {
        case 0x07:
          out += '\\a'
          break
        case 0x08:
          out += '\\b'
          break
        case 0x0c:
          out += '\\f'
          break
        case NL:
          out += '\\n'
          break
        case 0x0d:
          out += '\\r'
          break
        case 0x09:
          out += '\\t'
          break
        case 0x0b:
          out += '\\v'
          break
        default:
          if (r < 0x20 || r === 0x7f) out += `\\x${r.toString(16).padStart(2, '0')}`
          else if (r >= 0xd800 && r <= 0xdfff)
            out += '\\ufffd' // a lone surrogate: Go's utf8.RuneError
          else if (r < 0x10000) out += `\\u${r.toString(16).padStart(4, '0')}`
          else out += `\\U${r.toString(16).padStart(8, '0')}`
      }
    }
  }
  return `${out}"`
}
