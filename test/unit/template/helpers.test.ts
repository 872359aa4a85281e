// The helpers as the engine offers them: only to a template parsed with
// `helpers`, after the caller's functions and before the builtins; each
// bounded as the builtins are (no string past maxOutput is built, the work is
// counted in the step budget); and upper/lower mapping every rune as Go
// does. What each renders is the differential suite's (helpers-differential.test.ts).
import { describe, expect, it } from 'vitest'
import { EMPTY, HELPER_NAMES, LimitError, ParseError, parse } from '../../../lib/template'
import type { ExecuteOptions, TemplateFunction } from '../../../lib/template'
import { BUILTINS } from '../../../lib/template/exec/builtins'

const helpers = (text: string, functions: string[] = []) => parse('t', text, { functions, helpers: true })

/** What executing `text` (helpers on) throws, or its output's length, to fail an expectation clearly. */
async function failure(text: string, data: unknown, options: ExecuteOptions = {}): Promise<unknown> {
  return helpers(text)
    .execute(data, options)
    .then(
      (output) => `no error; output of ${output.length} characters`,
      (e: unknown) => e,
    )
}

describe('the helpers option', () => {
  it('names the issue’s helpers, sorted, none of them a builtin', () => {
    expect(HELPER_NAMES).toEqual(
      [
        'contains',
        'default',
        'fence',
        'hasPrefix',
        'hasSuffix',
        'indent',
        'join',
        'lower',
        'nindent',
        'quote',
        'replace',
        'toJson',
        'toPrettyJson',
        'trim',
        'trunc',
        'upper',
      ].sort(),
    )
    expect(Object.isFrozen(HELPER_NAMES)).toBe(true)
    expect(HELPER_NAMES.filter((name) => Object.hasOwn(BUILTINS, name))).toEqual([])
  })

  it('leaves the engine Go’s text/template without it: a helper is an undefined function', async () => {
    expect(() => parse('t', '{{upper "x"}}', { functions: [] })).toThrow(ParseError)
    expect(() => parse('t', '{{upper "x"}}', { functions: [] })).toThrow('template: t:1: function "upper" not defined')
    await expect(parse('t', '{{upper "x"}}').execute(null)).rejects.toThrow(
      'template: t:1:2: executing "t" at <upper>: "upper" is not a defined function',
    )
  })

  it('accepts at parse time a helper, a given function or a builtin, and nothing else', () => {
    expect(helpers('{{lookup 1 | toJson | upper | len}}', ['lookup'])).toBeDefined()
    expect(() => helpers('{{title "x"}}', ['lookup'])).toThrow('function "title" not defined')
  })

  it('calls the helpers of a template parsed with them, with or without the parse-time check', async () => {
    expect(await helpers('{{upper .}}').execute('x')).toBe('X')
    expect(await parse('t', '{{upper .}}', { helpers: true }).execute('x')).toBe('X')
  })

  it('lets a caller’s function of a helper’s name win, as a tool named like a helper does', async () => {
    const funcs: Record<string, TemplateFunction> = { upper: (s) => `tool(${String(s)})` }
    expect(await helpers('{{upper .}} {{lower "X"}}', ['upper']).execute('x', { funcs })).toBe('tool(x) x')
  })

  it('keeps the helpers for every template of the set', async () => {
    const t = parse('t', '{{template "x" "a"}}', { helpers: true, functions: [], templates: { x: '{{upper .}}' } })
    expect(t.helpers).toBe(true)
    expect(await t.execute(null)).toBe('A')
    expect(await (t.lookup('x') as typeof t).execute('b')).toBe('B')
  })

  it('converts a pending operand as it arrives, failing at its place', async () => {
    const later: TemplateFunction = (v) => Promise.resolve(v)
    const t = helpers('{{upper (later .)}}', ['later'])
    expect(await t.execute('x', { funcs: { later } })).toBe('X')
    // Where Go's executor last was: the call's last operand.
    await expect(t.execute(3, { funcs: { later } })).rejects.toThrow(
      'template: t:1:15: executing "t" at <.>: wrong type for value; expected string; got float64',
    )
  })

  it('sees a soft failure’s value as the empty string', async () => {
    const soft: TemplateFunction = () => EMPTY
    const funcs = { soft }
    expect(
      await helpers('[{{upper (soft)}}|{{toJson (soft)}}|{{soft | default "d"}}]', ['soft']).execute(null, { funcs }),
    ).toBe('[|""|d]')
  })
})

describe('upper and lower', () => {
  // Every rune but the surrogates, once: one string, through the engine.
  const runes = Array.from({ length: 0x110000 }, (_, r) => r).filter((r) => r < 0xd800 || r > 0xdfff)
  const all = runes.map((r) => String.fromCodePoint(r)).join('')

  it.each([
    ['upper', (s: string) => s.toUpperCase()],
    ['lower', (s: string) => s.toLowerCase()],
  ])('%s maps each rune to one, as the JS engine does wherever its full mapping is one rune', async (name, native) => {
    const mapped = Array.from(await helpers(`{{${name} .}}`).execute(all))
    expect(mapped).toHaveLength(runes.length)
    const differ = runes.filter((r, i) => {
      const full = native(String.fromCodePoint(r))
      return Array.from(full).length === 1 && mapped[i] !== full
    })
    expect(differ.map((r) => r.toString(16))).toEqual([])
  })

  it('lowers Σ to σ wherever it stands, as Go does', async () => {
    expect(await helpers('{{lower .}}').execute('ΟΔΟΣ Σ')).toBe('οδοσ σ')
  })
})

describe('bounds', () => {
  // Each result is too large for a JS string: built before its length was checked, it would fail otherwise.
  const big = 'x'.repeat(100_000)
  it.each([
    ['indent', '{{indent 1000000000000 "x"}}', null],
    ['nindent', '{{nindent 1000000000000 "x"}}', null],
    ['replace', '{{replace "x" .big .big}}', { big }],
    ['join', '{{join "" .list}}', { list: Array.from({ length: 10_000 }, () => big) }],
    [
      'quote',
      '{{quote .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big .big}}',
      { big },
    ],
    ['toJson', '{{toJson .}}', Array.from({ length: 10_000 }, () => big)],
    ['toPrettyJson', '{{toPrettyJson .}}', Array.from({ length: 10_000 }, () => big)],
  ])('%s refuses a result past the output limit before building it', async (name, text, data) => {
    const e = await failure(text, data)
    expect(e).toBeInstanceOf(LimitError)
    expect(e).toMatchObject({
      limit: 'maxOutput',
      message: `template: t:1:2: executing "t" at <${text.slice(2, -2)}>: error calling ${name}: the result would exceed the output limit of 4194304 characters`,
    })
  })

  it.each([
    // [template, data whose result is 100 characters, data whose result is longer]
    ['{{indent 9 .}}', 'x' + '\n'.repeat(9), 'xx' + '\n'.repeat(9)],
    ['{{nindent 9 .}}', '\n'.repeat(9), 'x' + '\n'.repeat(9)],
    ['{{replace "a" "bb" .}}', 'a'.repeat(50), 'a'.repeat(50) + 'c'],
    ['{{replace "" "-" .}}', '😀' + 'a'.repeat(48), '😀' + 'a'.repeat(49)],
    ['{{join ", " .}}', ['x'.repeat(50), 'x'.repeat(48)], ['x'.repeat(50), 'x'.repeat(49)]],
    ['{{quote .}}', '\u0001'.repeat(24) + 'xx', '\u0001'.repeat(25)],
    ['{{toJson .}}', '<'.repeat(16) + 'xx', '<'.repeat(16) + 'xxx'],
    ['{{toPrettyJson .}}', { a: [['x'.repeat(63)]] }, { a: [['x'.repeat(64)]] }],
    ['{{fence "" .}}', '`'.repeat(32), '`'.repeat(33)],
    ['{{upper .}}', 'x'.repeat(100), 'x'.repeat(101)],
    ['{{trim .}}', ' ' + 'x'.repeat(100) + ' ', ' ' + 'x'.repeat(101) + ' '],
    ['{{trunc 101 .}}', 'x'.repeat(100), 'x'.repeat(102)],
  ])('%s builds up to the limit, and not a character past it', async (text, fits, over) => {
    expect(await helpers(text).execute(fits, { maxOutput: 100 })).toHaveLength(100)
    expect(await failure(text, over, { maxOutput: 100 })).toMatchObject({
      limit: 'maxOutput',
      message: expect.stringContaining('the result would exceed the output limit of 100 characters'),
    })
  })

  it('stops toJson and toPrettyJson at maxDataDepth', async () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 101; i++) deep = i % 2 === 0 ? [deep] : { k: deep }
    for (const name of ['toJson', 'toPrettyJson']) {
      expect(await failure(`{{${name} .}}`, deep)).toMatchObject({
        limit: 'maxDataDepth',
        message: `template: t:1:2: executing "t" at <${name} .>: error calling ${name}: data nested deeper than 100 levels`,
      })
    }
    expect(await helpers('{{len (toJson .)}}').execute(deep, { maxDataDepth: 101 })).toMatch(/^\d+$/)
  })

  it.each([
    ['{{upper .}}', 'x'.repeat(1_000_000)],
    ['{{len (trim .)}}', ' '.repeat(1_000_000)],
    ['{{contains "y" .}}', 'x'.repeat(1_000_000)],
    ['{{replace "x" "y" .}}', 'x'.repeat(100_000)],
    ['{{join "" .}}', Array.from({ length: 100_000 }, () => '')],
    ['{{len (toJson .)}}', Array.from({ length: 100_000 }, () => 0)],
    ['{{fence "" .}}', '`'.repeat(1_000_000)],
    ['{{len (trunc 1000000 .)}}', '😀'.repeat(1_000_000)],
  ])('%s counts its work in the step budget', async (text, data) => {
    expect(await failure(text, data, { maxSteps: 1000 })).toMatchObject({ name: 'TimeoutError' })
    await expect(helpers(text).execute(data)).resolves.toBeDefined()
  })
})
