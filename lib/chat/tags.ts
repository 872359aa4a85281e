/**
 * Answers in tags (`returns: {"format": "tags", "tags": [...]}`), as coding
 * agents' prompts ask for them: `<actions>` shell commands, `<read>`
 * commands, `<code filename="...">` files, `<task>`. The answer is parsed
 * into its declared tags, in document order, content verbatim; what does
 * not parse cleanly is a warning, never an error: the model's text is what
 * it is. One pass over the text, read by hand (no regular expression runs
 * over it): an answer is up to LLM_MAX_BYTES of a model's making. The parsed
 * form is bounded by the text: see PARSED_EXTRA_CHARS.
 */
import { turn } from '../abort'
import type { PromptRecord } from '../catalog'
import { isObject } from '../json'
import { dangerOf } from './dangerous-commands'
import { MAX_ATTRIBUTES, Names, bodyOf, openTag, tagAt } from './tag-scan'
import type { OpenTag } from './tag-scan'

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
 * said; a closing tag nothing opened is said. The text is read by hand from
 * one `<` to the next: each character is looked at twice at most (a stretch
 * read as an opening tag that turns out not to be one is read again as
 * text), and nothing of it is copied but the elements' contents.
 */
export function parseTags(text: string, declared: readonly string[]): ParsedTags {
  const scan = scanTags(text, declared)
  for (;;) {
    const step = scan.next()
    if (step.done) return step.value
  }
}

/**
 * parseTags, taking a turn for the isolate's other requests every
 * SCAN_CHARS_PER_TURN characters: a tags answer of megabytes is read in
 * pieces of a few ms, not in one piece of a hundred.
 */
export async function parseTagsInTurns(text: string, declared: readonly string[]): Promise<ParsedTags> {
  const scan = scanTags(text, declared)
  for (;;) {
    const step = scan.next()
    if (step.done) return step.value
    await turn()
  }
}

/** Characters of an answer read between two turns (parseTagsInTurns). */
const SCAN_CHARS_PER_TURN = 256 * 1024

/** parseTags's reading, pausing (a `yield`) every SCAN_CHARS_PER_TURN characters. */
function* scanTags(text: string, declared: readonly string[]): Generator<undefined, ParsedTags, undefined> {
  const names = new Names(declared)
  const parsed: TagElement[] = []
  const warnings: string[] = []
  const lineOf = lineCounter(text)
  const warn = (word: () => string) => {
    if (warnings.length < MAX_WARNINGS) warnings.push(word())
  }
  let room = text.length + PARSED_EXTRA_CHARS
  /** Adds the element when the room takes it; past the room, says so and answers false. */
  const add = (name: string, open: OpenTag, content: string, at: number): boolean => {
    const chars = ELEMENT_CHARS + name.length + content.length + attributesChars(open.attributes)
    if (chars > room) {
      warn(() => `the tags from the <${name}> at line ${lineOf(at)} on are left out: ${PAST_ROOM}`)
      return false
    }
    room -= chars
    parsed.push({ tag: name, attributes: open.attributes, content })
    return true
  }
  let at = text.indexOf('<')
  let paused = 0
  while (at !== -1) {
    if (at - paused >= SCAN_CHARS_PER_TURN) {
      paused = at
      yield
    }
    const { name, closing, nameEnd } = tagAt(text, at, names)
    if (name === undefined || closing) {
      if (name !== undefined) warn(() => `a closing </${name}> at line ${lineOf(at)} closes no open <${name}>`)
      at = text.indexOf('<', Math.max(nameEnd, at + 1))
      continue
    }
    const open = openTag(text, nameEnd)
    if (!open) {
      at = text.indexOf('<', nameEnd)
      continue
    }
    if (open.more > 0) {
      warn(
        () =>
          `the <${name}> at line ${lineOf(at)} keeps its first ${MAX_ATTRIBUTES} attributes: ${open.more} more are left out`,
      )
    }
    if (open.selfClosing) {
      if (!add(name, open, '', at)) break
      at = text.indexOf('<', open.end)
      continue
    }
    const body = bodyOf(text, open.end, name, names)
    if (body.inner) {
      const inner = body.inner
      warn(() => `a <${inner}> inside the <${name}> at line ${lineOf(at)} is left in its content`)
    }
    if (body.after === -1) warn(() => `the <${name}> at line ${lineOf(at)} is not closed: its content runs to the end`)
    if (!add(name, open, text.slice(open.end, body.end), at)) break
    at = body.after === -1 ? -1 : text.indexOf('<', body.after)
  }
  listCommands(parsed, room, warn)
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
 * Lists the commands of the `actions` blocks, which repeat what the blocks
 * hold, with the room the elements left: once a command does not fit, the
 * blocks after it list none (and are not read).
 */
function listCommands(parsed: TagElement[], room: number, warn: (word: () => string) => void): void {
  let cut: { listed: number; after: number } | undefined
  for (const element of parsed) {
    if (element.tag !== 'actions') continue
    if (cut) {
      element.commands = []
      cut.after++
      continue
    }
    const listed = commandsOf(element.content, room)
    element.commands = listed.commands
    room = listed.room
    if (listed.cut) cut = { listed: listed.commands.length, after: 0 }
  }
  if (!cut) return
  const { listed, after } = cut
  const others = after === 0 ? '' : `, the ${after} after it none`
  warn(() => `an <actions> block lists its first ${listed} commands only${others}: ${PAST_ROOM}`)
}

/**
 * An `actions` block's commands: one per line, blank lines and `#` comments
 * dropped, each judged; while `room` takes them (each its line, its reason
 * and framing), then `cut`. A line the room cannot take is not judged.
 */
function commandsOf(content: string, room: number): { commands: Command[]; room: number; cut: boolean } {
  const commands: Command[] = []
  for (let start = 0; start <= content.length;) {
    const newline = content.indexOf('\n', start)
    const end = newline === -1 ? content.length : newline
    const line = content.slice(start, end).trim()
    start = end + 1
    if (line === '' || line.startsWith('#')) continue
    if (COMMAND_CHARS + line.length > room) return { commands, room, cut: true }
    const reason = dangerOf(line)
    const chars = COMMAND_CHARS + line.length + (reason ? DANGER_CHARS + reason.length : 0)
    if (chars > room) return { commands, room, cut: true }
    room -= chars
    commands.push(reason ? { line, dangerous: true, reason } : { line })
  }
  return { commands, room, cut: false }
}

/** A counter of lines that reads on from the last index it was asked about: warnings come in document order. */
function lineCounter(text: string): (index: number) => number {
  let from = 0
  let line = 1
  return (index) => {
    if (index < from) {
      from = 0
      line = 1
    }
    for (let i = text.indexOf('\n', from); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++
    from = index
    return line
  }
}
