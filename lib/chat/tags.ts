/**
 * Answers in tags (`returns: {"format": "tags", "tags": [...]}`), as coding
 * agents' prompts ask for them: `<actions>` shell commands, `<read>`
 * commands, `<code filename="...">` files, `<task>`. The answer is parsed
 * into its declared tags, in document order, content verbatim; what does
 * not parse cleanly is a warning, never an error: the model's text is what
 * it is. One pass over the text, no regular expression that can backtrack
 * over it: an answer is up to LLM_MAX_BYTES of a model's making.
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
    const start = open.end
    if (open.selfClosing) {
      parsed.push(element(name, open.attributes, ''))
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
    parsed.push(element(name, open.attributes, content))
    candidates.lastIndex = closed ? close.lastIndex : text.length
  }
  return { parsed, warnings }
}

function element(tag: string, attributes: Record<string, string>, content: string): TagElement {
  return tag === 'actions' ? { tag, attributes, content, commands: commandsOf(content) } : { tag, attributes, content }
}

/** An `actions` block's commands: one per line, blank lines and `#` comments dropped, each judged. */
function commandsOf(content: string): Command[] {
  return content
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const reason = dangerOf(line)
      return reason ? { line, dangerous: true, reason } : { line }
    })
}

/**
 * The rest of an opening tag from `from` (just after its name): attributes
 * up to `>` or `/>`. It stops at a `<` or a line break, which no tag of
 * these answers holds, so that no stretch of text is read for two tags.
 */
function openTag(
  text: string,
  from: number,
): { attributes: Record<string, string>; end: number; selfClosing: boolean } | undefined {
  const attributes: Record<string, string> = {}
  const attribute = /[ \t]*([^\s=<>/"']+)(?:[ \t]*=[ \t]*(?:"([^"<\n]*)"|'([^'<\n]*)'|([^\s<>"']+)))?|[ \t]*(\/?)>/y
  let at = from
  if (!/[ \t/>]/.test(text[at] ?? '')) return undefined
  for (;;) {
    attribute.lastIndex = at
    const m = attribute.exec(text)
    if (!m) return undefined
    at = attribute.lastIndex
    if (m[1] === undefined) return { attributes, end: at, selfClosing: m[5] === '/' }
    setOwn(attributes, m[1], m[2] ?? m[3] ?? m[4] ?? '')
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
