/** Runes in JavaScript strings, as Go's unicode/utf8 sees them, and their UTF-8: every encoder and decoder of lib/template. */

export const MAX_RUNE = 0x10ffffn

/** Whether s[i] and s[i+1] are a surrogate pair (one rune; a lone surrogate is one U+FFFD rune, as Go sees it). */
export function isPairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i)
  if (c < 0xd800 || c > 0xdbff) return false
  const d = s.charCodeAt(i + 1)
  return d >= 0xdc00 && d <= 0xdfff
}

/** The rune at s[i] as Go sees it (a lone surrogate is U+FFFD); above U+FFFF it spans s[i] and s[i+1]. */
export function runeAt(s: string, i: number): number {
  const c = s.charCodeAt(i)
  if (c < 0xd800 || c > 0xdfff) return c
  return isPairAt(s, i) ? (s.codePointAt(i) as number) : 0xfffd
}

/** The number of runes (code points) in s. */
export function runeCount(s: string): number {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    if (isPairAt(s, i)) {
      n--
      i++
    }
  }
  return n
}

const encoder = new TextEncoder()
/** Go keeps a leading U+FEFF as it is: so must the decoder. */
const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true })

/** Strings this short are encoded here: calling TextEncoder costs more. */
const SHORT = 32

/** The UTF-8 bytes of s; a lone surrogate is U+FFFD, as encoding/json would have made it. */
export function utf8(s: string): Uint8Array {
  if (s.length > SHORT) return encoder.encode(s)
  const bytes: number[] = []
  for (let i = 0; i < s.length; i++) {
    const r = runeAt(s, i)
    if (r > 0xffff) i++
    appendRune(bytes, r)
  }
  return new Uint8Array(bytes)
}

/** The UTF-8 bytes of s, or undefined when it is ASCII (its bytes are its characters). */
export function utf8Bytes(s: string): Uint8Array | undefined {
  return /^[\x00-\x7f]*$/.test(s) ? undefined : encoder.encode(s)
}

/** The string UTF-8 bytes stand for; invalid bytes are U+FFFD, and a leading BOM stays. */
export function fromUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes)
}

/** Appends the UTF-8 encoding of code point `cp`; a surrogate is U+FFFD, as Go reads it. */
export function appendRune(out: number[], cp: number): void {
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd
  if (cp < 0x80) out.push(cp)
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f))
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f))
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f))
}

/** A rune as utf8.EncodeRune writes it: U+FFFD for surrogates and values above U+10FFFF. */
export function validRune(c: bigint): number {
  if (c > MAX_RUNE) return 0xfffd
  const r = Number(c)
  return r >= 0xd800 && r <= 0xdfff ? 0xfffd : r
}

/** The UTF-8 length of text[from, to), a lone surrogate counting as the U+FFFD it is written as. */
export function utf8Length(text: string, from: number, to: number): number {
  let n = 0
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < to && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4
      i++
    } else n += 3
  }
  return n
}
