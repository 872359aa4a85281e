// Issue 27, row 11: a tags answer (lib/chat/tags.ts, lib/chat/tag-scan.ts) read by hand in one pass. What the
// regular expressions it replaced matched, it matches; a text of many small blocks past the parsed form's room is
// read once, its blocks past the room listing no commands, said in one warning.
import { describe, expect, it } from 'vitest'
import { parseTags, parseTagsInTurns } from '../../lib/chat/tags'

const TAGS = ['actions', 'read', 'code', 'task']
const PAST_ROOM = "the parsed form holds the answer's length plus 65536 characters at most"

describe('the pieces of a tag', () => {
  it('closes a tag at its closing name in any case, blanks and line breaks before the >', () => {
    const { parsed, warnings } = parseTags('<Task>a</TASK \n >b<read>c</read\t>', TAGS)
    expect(parsed).toEqual([
      { tag: 'task', attributes: {}, content: 'a' },
      { tag: 'read', attributes: {}, content: 'c' },
    ])
    expect(warnings).toEqual([])
  })

  it('reads attributes quoted, unquoted (with / and =), bare, blanks around the =', () => {
    const { parsed } = parseTags(`<code a = "x y" b='z' c=d/e=f g\th=1>body</code>`, TAGS)
    expect(parsed[0]?.attributes).toEqual({ a: 'x y', b: 'z', c: 'd/e=f', g: '', h: '1' })
    expect(parsed[0]?.content).toBe('body')
  })

  it('is no tag when a quoted value holds a line break or a <, or the name runs on', () => {
    expect(parseTags('<code a="x\ny">1</code>', TAGS).parsed).toEqual([])
    expect(parseTags("<code a='x<y'>1</code>", TAGS).parsed).toEqual([])
    expect(parseTags('<codes>1</codes><code-x>2</code-x>', TAGS).parsed).toEqual([])
    expect(parseTags('<code\n>1</code>', TAGS).parsed).toEqual([])
    expect(parseTags('<code/ >1</code>', TAGS).parsed).toEqual([])
  })

  it('closes only at the closing tag of its own name, and says the first declared tag inside it', () => {
    const { parsed, warnings } = parseTags('<code><readme> <task x>  </read> </codex> </code>', TAGS)
    expect(parsed).toEqual([{ tag: 'code', attributes: {}, content: '<readme> <task x>  </read> </codex> ' }])
    expect(warnings).toEqual(['a <task> inside the <code> at line 1 is left in its content'])
  })

  it('numbers the lines of its warnings in document order', () => {
    const text = ['</read>', 'x', '</code>', '', '<task>a<read/>b</task>', '<code>open'].join('\n')
    expect(parseTags(text, TAGS).warnings).toEqual([
      'a closing </read> at line 1 closes no open <read>',
      'a closing </code> at line 3 closes no open <code>',
      'a <read> inside the <task> at line 5 is left in its content',
      'the <code> at line 6 is not closed: its content runs to the end',
    ])
  })
})

describe('many small blocks past the room', () => {
  it("the bench's 3.5 MB of <actions>x</actions>: listed while the room takes them, said in two warnings", () => {
    const text = '<actions>x</actions>'.repeat(175_000)
    const { parsed, warnings } = parseTags(text, TAGS)
    expect(JSON.stringify(parsed).length).toBeLessThanOrEqual(text.length + 64 * 1024)
    // The blocks after the one whose command the room could not take list none, and are not read.
    const listing = parsed.filter((e) => e.commands?.length).length
    expect(listing).toBeLessThan(10)
    expect(parsed.every((e) => Array.isArray(e.commands))).toBe(true)
    // Before: twenty warnings, eighteen of them "lists its first 0 commands only", one per block read again.
    expect(warnings).toEqual([
      `the tags from the <actions> at line 1 on are left out: ${PAST_ROOM}`,
      `an <actions> block lists its first 0 commands only, the ${parsed.length - listing - 1} after it none: ${PAST_ROOM}`,
    ])
  })
})

describe('parseTagsInTurns', () => {
  it('reads as parseTags does, letting timers due meanwhile fire between pieces of a long answer', async () => {
    const text = `<actions>${'x'.repeat(1000)}</actions>`.repeat(1000)
    let fired = 0
    for (let i = 0; i < 3; i++) setTimeout(() => fired++, 0)
    const reading = parseTagsInTurns(text, TAGS)
    // Synchronously, the first piece is read and nothing else ran; the timers fire between the pieces.
    expect(fired).toBe(0)
    expect(await reading).toEqual(parseTags(text, TAGS))
    expect(fired).toBe(3)
  })
})
