// What a chat answers is bounded by what the model said: a tags answer's parsed form (lib/chat/tags.ts) holds the
// answer's text plus a fixed allowance at most, whatever the shape of the text.
import { describe, expect, it } from 'vitest'
import { parseTags } from '../../lib/chat/tags'

const TAGS = ['actions', 'read', 'code', 'task']
const SIZE = 3_500_000
/** The allowance the parsed form has beyond the text (PARSED_EXTRA_CHARS), and the JSON of a few warnings. */
const EXTRA = 64 * 1024 + 4096

/** The answer's text as JSON, the parsed form as JSON: what the chat's answer carries of each. */
const sizes = (text: string) => ({
  text: JSON.stringify(text).length,
  parsed: JSON.stringify(parseTags(text, TAGS)).length,
})

describe('the parsed form of a tags answer', () => {
  // Measured before the bound: 8.7, 8.0, 6.3 and 3.4 times the text (30 MB for the first).
  const hostile: Record<string, string> = {
    'a block of destructive command lines': `<actions>\n${'rm -rf /\n'.repeat(SIZE / 9)}</actions>`,
    'a block of one-letter command lines': `<actions>\n${'a\n'.repeat(SIZE / 2)}</actions>`,
    'self-closing tags': '<task/>'.repeat(SIZE / 7),
    'empty tags': '<read></read>'.repeat(SIZE / 13),
  }
  for (const [what, text] of Object.entries(hostile)) {
    it(`holds the text plus 64 KiB at most for ${what}, and says what it left out`, () => {
      const { text: said, parsed } = sizes(text)
      expect(parsed).toBeLessThanOrEqual(said + EXTRA)
      const { warnings } = parseTags(text, TAGS)
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain("the parsed form holds the answer's length plus 65536 characters at most")
    })
  }

  it('lists the elements first, and the commands of actions blocks with the room they leave', () => {
    const code = `<code filename="big.txt">${'x'.repeat(200_000)}</code>`
    const actions = `<actions>\n${'echo hi\n'.repeat(20_000)}</actions>`
    const { parsed, warnings } = parseTags(`${actions}\n${code}`, TAGS)
    expect(parsed.map((e) => e.tag)).toEqual(['actions', 'code'])
    expect(parsed[1]?.content).toHaveLength(200_000)
    const listed = parsed[0]?.commands?.length ?? 0
    expect(listed).toBeGreaterThan(1000)
    expect(listed).toBeLessThan(20_000)
    expect(warnings).toEqual([
      `an <actions> block lists its first ${listed} commands only: the parsed form holds the answer's length plus 65536 characters at most`,
    ])
  })

  it('keeps 32 attributes of a tag, reads past the rest, and says so', () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `a${i}`)
    const { parsed, warnings } = parseTags(`<code ${names.join(' ')} a0="again">x</code><task>t</task>`, TAGS)
    expect(Object.keys(parsed[0]?.attributes ?? {})).toEqual(names.slice(0, 32))
    expect(parsed[0]?.attributes.a0).toBe('again')
    expect(parsed[1]).toEqual({ tag: 'task', attributes: {}, content: 't' })
    expect(warnings).toEqual(['the <code> at line 1 keeps its first 32 attributes: 99968 more are left out'])
  })

  it('leaves an ordinary answer whole', () => {
    const text = '<task>Fix it</task>\n<actions>\nls\nrm -rf build\n</actions>'
    expect(parseTags(text, TAGS)).toEqual({
      parsed: [
        { tag: 'task', attributes: {}, content: 'Fix it' },
        {
          tag: 'actions',
          attributes: {},
          content: '\nls\nrm -rf build\n',
          commands: [{ line: 'ls' }, { line: 'rm -rf build', dangerous: true, reason: 'deletes recursively' }],
        },
      ],
      warnings: [],
    })
  })
})
