/**
 * Answers in tags (`returns: {"format": "tags", "tags": [...]}`), as coding
 * agents' prompts ask for them: `<actions>` shell commands, `<read>`
 * commands, `<code filename="...">` files, `<task>`. The answer is parsed
 * into its declared tags, in document order, content verbatim; what does
 * not parse cleanly is a warning, never an error: the model's text is what
 * it is. One pass over the text, no regular expression that can backtrack
 * over it: an answer is up to LLM_MAX_BYTES of a model's making. The parsed
 * form is bounded by the text: see PARSED_EXTRA_CHARS.
 */
import type { PromptRecord } from '../catalog'
import { isObject, setOwn } from '../json'
import { dangerOf } from './danger'

/** One declared tag of the answer. `commands`: an `actions` block's command lines, each judged. */
export interface TagElement {
  tag: string
  attributes: Record<string, string>
  content: string
  commands?: Command[]
}

export interface Command {
  line: string
  dangerous?: true
  reason?: string
}

export interface ParsedTags {
  parsed: TagElement[]
  warnings: string[]
}

/** A tag name as `returns.tags` may declare it (jsonschema/prompt.json holds records to it). */
const TAG_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/

/** The tags a prompt's answer is parsed into: its `returns` in the tags format; undefined for any other `returns`. */
export function returnsTags(record: PromptRecord): string[] | undefined {
  const { returns } = record
  if (!isObject(returns) || returns.format !== 'tags' || !Array.isArray(returns.tags)) return undefined
  return returns.tags.filter((t): t is string => typeof t === 'string' && TAG_NAME.test(t))
}

/** Warnings listed at most: a text of a thousand stray tags says so in a few lines. */
const MAX_WARNINGS = 20

/**
 * What the parsed form may hold beyond the text's own length, in
 * characters. Each element, attribute and command costs its framing as
 * JSON besides its text, and an `actions` block's commands repeat its
 * content: unbounded, a text of tiny tags or of one-letter command lines
 * answered six to nine times its size (a 3.5 MB answer, 30 MB parsed). So
 * elements are listed while the text plus this much takes them, then
 * commands with what is left; past it, a warning says what was left out.
 */
const PARSED_EXTRA_CHARS = 64 * 1024
/** The framing as JSON of an element (`{"tag":"","attributes":{},"content":"","commands":[]}`), an attribute, a command, a command's danger. */
const ELEMENT_CHARS = 64
const ATTRIBUTE_CHARS = 8
const COMMAND_CHARS = 16
const DANGER_CHARS = 32

/**
 * The declared tags of `text`, tag names matched whatever their case (and
 * answered lower-cased). A tag inside another is left in the outer one's
 * content, and said; an unclosed tag takes the rest of the text, and is
 * said; a closing tag nothing opened is said.
 */
export function parseTags(text: string, declared: readonly string[]): ParsedTags {
  const names = new Set(declared.map((t) => t.toLowerCase()))
  const parsed: TagElement[] = []
  const warnings: string[] = []
  // Worded only while there is room: finding a line costs a pass over the text before it.
  const warn = (word: () => string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push(word())
  }
  let room = text.length + PARSED_EXTRA_CHARS
  /** Adds the element when the room takes it; past the room, says so and answers false. */
  const add = (name: string, attributes: Record<string, string>, content: string, at: number): boolean => {
    const chars = ELEMENT_CHARS + name.length + content.length + attributesChars(attributes)
    if (chars > room) {
      warn(() => `the tags from the <${name}> at line ${lineOf(text, at)} on are left out: ${PAST_ROOM}`)
      return false
    }
    room -= chars
    parsed.push({ tag: name, attributes, content })
    return true
  }
  const closers = new Map<string, RegExp>()
  const candidates = /<(\/?)([A-Za-z][A-Za-z0-9_-]*)/g
  let found: RegExpExecArray | null
  while ((found = candidates.exec(text)) !== null) {
    const name = (found[2] as string).toLowerCase()
    if (!names.has(name)) continue
    const at = found.index
    if (found[1]) {
      warn(() => `a closing </${name}> at line ${lineOf(text, at)} closes no open <${name}>`)
      continue
    }
    const open = openTag(text, candidates.lastIndex)
    if (!open) continue
    if (open.more > 0) {
      warn(
        () =>
          `the <${name}> at line ${lineOf(text, at)} keeps its first ${MAX_ATTRIBUTES} attributes: ${open.more} more are left out`,
      )
    }
    const start = open.end
    if (open.selfClosing) {
      if (!add(name, open.attributes, '', at)) break
      continue
    }
    let close = closers.get(name)
    if (!close) closers.set(name, (close = new RegExp(`</${name}\\s*>`, 'gi')))
    close.lastIndex = start
    const closed = close.exec(text)
    const end = closed ? closed.index : text.length
    const content = text.slice(start, end)
    const inner = firstDeclared(content, names)
    if (inner) warn(() => `a <${inner}> inside the <${name}> at line ${lineOf(text, at)} is left in its content`)
    if (!closed) warn(() => `the <${name}> at line ${lineOf(text, at)} is not closed: its content runs to the end`)
    if (!add(name, open.attributes, content, at)) break
    candidates.lastIndex = closed ? close.lastIndex : text.length
  }
  // The commands repeat what the blocks hold: listed with the room the elements left.
  for (const element of parsed) {
    if (element.tag !== 'actions') continue
    const listed = commandsOf(element.content, room)
    element.commands = listed.commands
    room = listed.room
    if (listed.cut)
      warn(() => `an <actions> block lists its first ${listed.commands.length} commands only: ${PAST_ROOM}`)
  }
  return { parsed, warnings }
}

/** Why a parsed form stops. */
const PAST_ROOM = `the parsed form holds the answer's length plus ${PARSED_EXTRA_CHARS} characters at most`

function attributesChars(attributes: Record<string, string>): number {
  let chars = 0
  for (const [name, value] of Object.entries(attributes)) chars += ATTRIBUTE_CHARS + name.length + value.length
  return chars
}

/**
 * An `actions` block's commands: one per line, blank lines and `#` comments
 * dropped, each judged; while `room` takes them (each its line, its reason
 * and framing), then `cut`.
 */
function commandsOf(content: string, room: number): { commands: Command[]; room: number; cut: boolean } {
  const commands: Command[] = []
  for (const raw of content.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const reason = dangerOf(line)
    const chars = COMMAND_CHARS + line.length + (reason ? DANGER_CHARS + reason.length : 0)
    if (chars > room) return { commands, room, cut: true }
    room -= chars
    commands.push(reason ? { line, dangerous: true, reason } : { line })
  }
  return { commands, room, cut: false }
}

/** Attributes of a tag kept at most (`filename`, `mode`, ...): the rest are read past, and said. */
const MAX_ATTRIBUTES = 32

/**
 * The rest of an opening tag from `from` (just after its name): attributes
 * up to `>` or `/>`, the first MAX_ATTRIBUTES kept (`more` counts the
 * others). It stops at a `<` or a line break, which no tag of these answers
 * holds, so that no stretch of text is read for two tags.
 */
function openTag(
  text: string,
  from: number,
): { attributes: Record<string, string>; more: number; end: number; selfClosing: boolean } | undefined {
  const attributes: Record<string, string> = {}
  const attribute = /[ \t]*([^\s=<>/"']+)(?:[ \t]*=[ \t]*(?:"([^"<\n]*)"|'([^'<\n]*)'|([^\s<>"']+)))?|[ \t]*(\/?)>/y
  let at = from
  let kept = 0
  let more = 0
  if (!/[ \t/>]/.test(text[at] ?? '')) return undefined
  for (;;) {
    attribute.lastIndex = at
    const m = attribute.exec(text)
    if (!m) return undefined
    at = attribute.lastIndex
    if (m[1] === undefined) return { attributes, more, end: at, selfClosing: m[5] === '/' }
    if (kept === MAX_ATTRIBUTES && !Object.hasOwn(attributes, m[1])) more++
    else {
      if (!Object.hasOwn(attributes, m[1])) kept++
      setOwn(attributes, m[1], m[2] ?? m[3] ?? m[4] ?? '')
    }
  }
}

/** The first declared tag opened inside `content`, if any. */
function firstDeclared(content: string, names: ReadonlySet<string>): string | undefined {
  const opening = /<([A-Za-z][A-Za-z0-9_-]*)[\s/>]/g
  let m: RegExpExecArray | null
  while ((m = opening.exec(content)) !== null) {
    const name = (m[1] as string).toLowerCase()
    if (names.has(name)) return name
  }
  return undefined
}

function lineOf(text: string, index: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++
  return line
}
