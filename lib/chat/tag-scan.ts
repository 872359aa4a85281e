/**
 * The pieces of a tags answer (lib/chat/tags.ts), read by hand from the
 * text where they are: tag names, opening tags with their attributes, an
 * element's content up to its closing tag. No regular expression runs over
 * the text and nothing of it is copied but names, values and contents, so
 * that an answer of megabytes is read in time linear in its length.
 */
import { setOwn } from '../json'

/**
 * The declared tag names, lower-cased, found by their length and first
 * letter: a name in the text is compared where it is, never copied.
 */
export class Names {
  readonly #byStart = new Map<number, string[]>()
  readonly #firsts = new Set<number>()

  constructor(declared: readonly string[]) {
    for (const name of new Set(declared.map((t) => t.toLowerCase()))) {
      const key = keyOf(name.length, name.charCodeAt(0))
      this.#byStart.set(key, [...(this.#byStart.get(key) ?? []), name])
      this.#firsts.add(name.charCodeAt(0))
    }
  }

  /** Whether a declared name starts with this character, whatever its case. */
  mayStart(c: number): boolean {
    return this.#firsts.has(lowerCase(c))
  }

  /** The declared tag named by `text` from `start` to `end`, lower-cased; undefined for any other name. */
  at(text: string, start: number, end: number): string | undefined {
    if (end === start) return undefined
    const named = this.#byStart.get(keyOf(end - start, lowerCase(text.charCodeAt(start))))
    return named?.find((name) => name.length === end - start && namedAt(text, start, name))
  }
}

const keyOf = (length: number, first: number) => length * 0x10000 + first

/** Whether `text` from `from` spells `name` (lower-cased), whatever the case of its letters. */
function namedAt(text: string, from: number, name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    if (lowerCase(text.charCodeAt(from + i)) !== name.charCodeAt(i)) return false
  }
  return true
}

/** Attributes of a tag kept at most (`filename`, `mode`, ...): the rest are read past, and said. */
export const MAX_ATTRIBUTES = 32

export interface OpenTag {
  attributes: Record<string, string>
  /** Attributes left out past MAX_ATTRIBUTES. */
  more: number
  /** Where the content starts: just after the `>`. */
  end: number
  selfClosing: boolean
}

/**
 * The rest of an opening tag from `from` (just after its name): attributes
 * (`name`, `name=value`, `name="value"`, `name='value'`) up to `>` or `/>`,
 * the first MAX_ATTRIBUTES kept. It stops at a `<` or a line break, which
 * no tag of these answers holds, so that no stretch of text is read for two
 * tags.
 */
export function openTag(text: string, from: number): OpenTag | undefined {
  const first = text.charCodeAt(from)
  if (!isBlank(first) && first !== SLASH && first !== GT) return undefined
  const open: OpenTag = { attributes: {}, more: 0, end: from, selfClosing: false }
  let kept = 0
  for (let at = from; ;) {
    const start = skipBlanks(text, at)
    const c = text.charCodeAt(start)
    if (c === GT || (c === SLASH && text.charCodeAt(start + 1) === GT)) {
      open.selfClosing = c === SLASH
      open.end = start + (c === SLASH ? 2 : 1)
      return open
    }
    let nameEnd = start
    while (nameEnd < text.length && isAttributeNameChar(text.charCodeAt(nameEnd))) nameEnd++
    if (nameEnd === start) return undefined
    const name = text.slice(start, nameEnd)
    const found = attributeValue(text, nameEnd)
    at = found ? found.end : nameEnd
    const known = Object.hasOwn(open.attributes, name)
    if (kept === MAX_ATTRIBUTES && !known) {
      open.more++
      continue
    }
    if (!known) kept++
    setOwn(open.attributes, name, found?.text ?? '')
  }
}

/** An attribute's `=value` from `from` (just after its name), quoted or not; undefined when there is none. */
function attributeValue(text: string, from: number): { text: string; end: number } | undefined {
  const equals = skipBlanks(text, from)
  if (text.charCodeAt(equals) !== EQUALS) return undefined
  const start = skipBlanks(text, equals + 1)
  const quote = text.charCodeAt(start)
  let end = quote === DOUBLE_QUOTE || quote === SINGLE_QUOTE ? start + 1 : start
  if (end > start) {
    while (end < text.length && !isQuotedEnd(text.charCodeAt(end), quote)) end++
    if (text.charCodeAt(end) !== quote) return undefined
    return { text: text.slice(start + 1, end), end: end + 1 }
  }
  while (end < text.length && isUnquotedChar(text.charCodeAt(end))) end++
  return end === start ? undefined : { text: text.slice(start, end), end }
}

/**
 * Where the content of the `<name>` opened just before `from` ends (at its
 * `</name>`, any case, blanks before the `>`), where the text goes on after
 * that closing tag (-1 when none closes it: the content runs to the end),
 * and the first declared tag opened inside it.
 */
export function bodyOf(
  text: string,
  from: number,
  name: string,
  names: Names,
): { end: number; after: number; inner: string | undefined } {
  let inner: string | undefined
  for (let at = text.indexOf('<', from); at !== -1; at = text.indexOf('<', at + 1)) {
    if (text.charCodeAt(at + 1) === SLASH) {
      const after = closerEnd(text, at + 2, name)
      if (after !== -1) return { end: at, after, inner }
    } else if (inner === undefined && names.mayStart(text.charCodeAt(at + 1))) {
      const nameEnd = tagNameEnd(text, at + 1)
      const c = text.charCodeAt(nameEnd)
      if (isSpace(c) || c === SLASH || c === GT) inner = names.at(text, at + 1, nameEnd)
    }
  }
  return { end: text.length, after: -1, inner }
}

/** Just after the `>` of `name\s*>` from `from` (after a `</`), any case; -1 when that is not there. */
function closerEnd(text: string, from: number, name: string): number {
  if (!namedAt(text, from, name)) return -1
  let at = from + name.length
  while (isSpace(text.charCodeAt(at))) at++
  return text.charCodeAt(at) === GT ? at + 1 : -1
}

/** The tag name just after the `<` at `at` (after `</` when `closing`), when it is a declared one, and where it ends. */
export function tagAt(
  text: string,
  at: number,
  names: Names,
): { name: string | undefined; closing: boolean; nameEnd: number } {
  const closing = text.charCodeAt(at + 1) === SLASH
  const start = at + (closing ? 2 : 1)
  // A name no declared one starts like is not read: the scan goes on from the next character, its letters hold no `<`.
  if (!names.mayStart(text.charCodeAt(start))) return { name: undefined, closing, nameEnd: start }
  const nameEnd = tagNameEnd(text, start)
  return { name: names.at(text, start, nameEnd), closing, nameEnd }
}

/** Where a tag name (`[A-Za-z][A-Za-z0-9_-]*`) from `from` ends; `from` when none starts there. */
function tagNameEnd(text: string, from: number): number {
  if (!isLetter(text.charCodeAt(from))) return from
  let end = from + 1
  while (isNameChar(text.charCodeAt(end))) end++
  return end
}

function skipBlanks(text: string, from: number): number {
  let at = from
  while (isBlank(text.charCodeAt(at))) at++
  return at
}

const TAB = 9
const NEWLINE = 10
const SPACE = 32
const DOUBLE_QUOTE = 34
const SINGLE_QUOTE = 39
const DASH = 45
const SLASH = 47
const LT = 60
const EQUALS = 61
const GT = 62
const UNDERSCORE = 95

const isBlank = (c: number) => c === SPACE || c === TAB
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
const isNameChar = (c: number) => isLetter(c) || (c >= 48 && c <= 57) || c === UNDERSCORE || c === DASH
const lowerCase = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c)
/** What `\s` matches in a regular expression. */
const isSpace = (c: number) =>
  (c >= 9 && c <= 13) ||
  c === SPACE ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff
/** `[^\s=<>/"']` */
const isAttributeNameChar = (c: number) => isUnquotedChar(c) && c !== EQUALS && c !== SLASH
/** `[^\s<>"']` */
const isUnquotedChar = (c: number) => !isSpace(c) && c !== LT && c !== GT && c !== DOUBLE_QUOTE && c !== SINGLE_QUOTE
/** The end of a quoted value: its quote, or a `<` or line break, which no value holds. */
const isQuotedEnd = (c: number, quote: number) => c === quote || c === LT || c === NEWLINE
