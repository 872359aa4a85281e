// What a hostile or careless template costs to parse: number literals of any
// length cost linear time and a short message, nesting has a limit that is a
// ParseError, any RangeError while parsing is a ParseError too, and a parse
// error's column is the one an execution error at the same place gives.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ExecError, MAX_NESTING, ParseError, parse } from '../../../lib/template'
import type { TemplateFunction } from '../../../lib/template'
import { nodeString } from '../../../lib/template/parse/nodes'

/** The error parsing `text` throws (anything thrown: a RangeError must show as one). */
function parseFailure(text: string): unknown {
  try {
    parse('t', text)
  } catch (e) {
    return e
  }
  throw new Error('expected a parse error, got none')
}

describe('number literals', () => {
  // Before: BigInt digit by digit, quadratic; a million digits took minutes, and the message held them all.
  it.each([
    ['a decimal integer', '1'.repeat(1_000_000)],
    ['an octal integer', '0' + '7'.repeat(1_000_000)],
    ['a hex integer', '0x' + 'f'.repeat(1_000_000)],
    ['a binary integer', '0b' + '1'.repeat(1_000_000)],
    ['an integer with underscores', '1_'.repeat(500_000) + '1'],
    ['an exponent without digits', '1'.repeat(1_000_000) + 'e'],
    ['a float out of range', '1'.repeat(1_000_000) + '.5'],
    ['an imaginary number', '1'.repeat(1_000_000) + 'i'],
  ])('of a million digits: %s is illegal, quoted by a short prefix', (_, literal) => {
    const e = parseFailure(`{{${literal}}}`)
    expect(e).toBeInstanceOf(ParseError)
    expect((e as ParseError).message).toBe(
      `template: t:1: illegal number syntax: ${JSON.stringify(literal.slice(0, 64))}...`,
    )
  })

  it('stops a complex number out of range, and a bad one, with a short message too', () => {
    const complex = parseFailure(`{{${'1'.repeat(1_000_000)}+2i}}`) as ParseError
    expect(complex.message).toBe(
      `template: t:1: strconv.ParseFloat: parsing "${'1'.repeat(64)}"...: value out of range`,
    )
    const bad = parseFailure(`{{${'1'.repeat(1_000_000)}x}}`) as ParseError
    expect(bad.message).toBe(`template: t:1: bad number syntax: "${'1'.repeat(64)}"...`)
  })

  it('still reads long literals that are in range, as Go does', async () => {
    const zeros = '0'.repeat(100_000)
    const t = parse(
      't',
      `{{0x1.${zeros}p0}} {{0x${zeros}1}} {{${zeros}7}} {{0x0p${'9'.repeat(1000)}}} {{1${zeros}e-100000}}`,
    )
    expect(await t.execute(null)).toBe('1 1 7 0 1')
  })

  it('quotes a literal of up to 64 characters whole, as Go does', () => {
    const literal = '9'.repeat(64)
    expect((parseFailure(`{{${literal}}}`) as ParseError).message).toBe(`template: t:1: integer overflow: "${literal}"`)
  })
})

describe('a long template on one line', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  // Before: the lexer counted each item's newlines by searching for the next one, which on a line of a
  // megabyte meant reading the rest of the text at every item: 3.5 s to parse 2 MB of actions.
  it('has each item’s newlines counted within the item, not by searching the rest of the text', () => {
    const text = '{{.abcdefgh}}'.repeat(20_000)
    const indexOf = vi.spyOn(String.prototype, 'indexOf')
    parse('t', text)
    let searched = 0
    for (const [i, call] of indexOf.mock.calls.entries()) {
      const self = indexOf.mock.contexts[i] as unknown as string
      if (call[0] === '\n') searched += self.length - Number(call[1] ?? 0)
    }
    expect(searched).toBeLessThan(text.length)
  })
})

describe('messages naming the text', () => {
  // Before: these three quoted the whole text, a megabyte of message for a megabyte of template.
  const long = (c: string) => c.repeat(1_000_000)

  it.each([
    ['a malformed character constant', `{{'${long('a')}'}}`, `malformed character constant: '${'a'.repeat(63)}...`],
    ['an undefined variable', `{{$${long('x')}}}`, `undefined variable "$${'x'.repeat(63)}"...`],
    ['a function not defined', `{{${long('f')} 1}}`, `function "${'f'.repeat(64)}"... not defined`],
    ['a literal given a field', `{{"${long('s')}".x}}`, `unexpected . after term "\\"${'s'.repeat(63)}"...`],
  ])('quote at most 64 characters of %s, then ...', (_, text, detail) => {
    let e: unknown
    try {
      parse('t', text, { functions: [] })
    } catch (thrown) {
      e = thrown
    }
    expect(e).toBeInstanceOf(ParseError)
    expect((e as ParseError).message).toBe(`template: t:1: ${detail}`)
  })

  it('are Go’s own for text up to 64 characters', () => {
    const failures = [`{{'${'a'.repeat(62)}'}}`, `{{$${'x'.repeat(63)}}}`, `{{${'f'.repeat(64)}}}`].map((text) => {
      try {
        parse('t', text, { functions: [] })
      } catch (e) {
        return (e as Error).message
      }
      return 'parsed'
    })
    expect(failures).toEqual([
      `template: t:1: malformed character constant: '${'a'.repeat(62)}'`,
      `template: t:1: undefined variable "$${'x'.repeat(63)}"`,
      `template: t:1: function "${'f'.repeat(64)}" not defined`,
    ])
  })
})

describe('nesting', () => {
  const kinds: [string, (n: number) => string][] = [
    ['if', (n) => '{{if true}}'.repeat(n) + 'x' + '{{end}}'.repeat(n)],
    ['range', (n) => '{{range 1}}'.repeat(n) + 'x' + '{{end}}'.repeat(n)],
    ['with', (n) => '{{with 1}}'.repeat(n) + 'x' + '{{end}}'.repeat(n)],
    ['block', (n) => Array.from({ length: n }, (_, i) => `{{block "b${i}" .}}`).join('') + 'x' + '{{end}}'.repeat(n)],
    ['parentheses', (n) => '{{print ' + '('.repeat(n) + '"x"' + ')'.repeat(n) + '}}'],
    [
      'a mix',
      (n) =>
        '{{if 1}}{{with 1}}'.repeat(50) +
        `{{print ${'('.repeat(n - 100)}"x"${')'.repeat(n - 100)}}}` +
        '{{end}}'.repeat(100),
    ],
  ]

  it.each(kinds)('of %s is fine up to the limit, and a ParseError one level past it', async (_, nest) => {
    expect(await parse('t', nest(MAX_NESTING)).execute(null)).toBe('x')
    const e = parseFailure(nest(MAX_NESTING + 2))
    expect(e).toBeInstanceOf(ParseError)
    expect((e as ParseError).detail).toBe(
      'max nesting depth exceeded: more than 200 levels of {{if}}, {{range}}, {{with}}, {{block}} and parentheses',
    )
  })

  it('one level past the limit fails', () => {
    for (const [kind, nest] of kinds) expect(parseFailure(nest(MAX_NESTING + 1)), kind).toBeInstanceOf(ParseError)
  })

  it('of ten thousand levels is a ParseError on the line of the level past the limit', () => {
    const deep = '{{if true}}\n'.repeat(10_000) + '{{end}}'.repeat(10_000)
    const e = parseFailure(deep)
    expect(e).toBeInstanceOf(ParseError)
    expect(e).toMatchObject({ line: MAX_NESTING + 1, column: 2 })
    expect(parseFailure(`{{${'('.repeat(10_000)}1${')'.repeat(10_000)}}}`)).toBeInstanceOf(ParseError)
  })
})

describe('a chain of {{else if}} or {{else with}}', () => {
  // Before: each link counted as a level of nesting, so 201 links were refused; Go accepts any number.
  const chain = (n: number, kind = 'if') =>
    `{{${kind} .a0}}0` + Array.from({ length: n }, (_, i) => `{{else ${kind} .a${i + 1}}}${i + 1}`).join('') + '{{end}}'

  it.each([201, 10_000])('of %i links is no nesting: it parses, renders, is analysed and printed', async (n) => {
    const t = parse('t', `{{if true}}${chain(n)}{{end}}${chain(n)}`)
    expect(await t.execute({ [`a${n}`]: 1 })).toBe(`${n}${n}`)
    expect(await t.execute({})).toBe('')
    expect(t.analysis.paths).toHaveLength(n + 1)
    expect(t.analysis.required).toEqual([['a0']])
    const tree = t.trees.get('t')
    const printed = nodeString(tree?.root ?? { type: 'list', pos: 0, nodes: [] })
    expect(printed.length).toBeGreaterThan(n * 30)
    expect(printed.endsWith('{{end}}'.repeat(n + 1))).toBe(true)
  })

  it('of {{else with}} too, each link with its own dot', async () => {
    const t = parse('t', chain(10_000, 'with').replace(/\}\}(\d+)/g, '}}{{.}}'))
    expect(await t.execute({ a9999: 'found' })).toBe('found')
  })

  it('waits for a pending link, or renders it aside, however long', async () => {
    const later: TemplateFunction = async (x) => x
    const text = `{{if false}}${'{{else if later false}}'.repeat(3_000)}{{else if later .}}yes{{end}}|`
    expect(await parse('t', text).execute(true, { funcs: { later } })).toBe('yes|')
    // With an assignment in a link, the chain cannot render aside: execution waits at each link.
    const waiting = parse('t', `{{$x := 1}}${text.replace('yes', '{{$x = 2}}yes')}{{$x}}`)
    expect(await waiting.execute(true, { funcs: { later } })).toBe('yes|2')
  })
})

describe('a RangeError while parsing', () => {
  /**
   * Parses `text` at stack depths near the engine's limit, from the
   * deepest up, until it parses: what each attempt threw. Near the limit
   * parsing runs out of stack; a little higher, it does not.
   */
  function atDepthsNearTheLimit(text: string): unknown[] {
    const outcomes: unknown[] = []
    let parsed = false
    let frames = 0
    const descend = (): void => {
      try {
        descend()
      } catch {
        // The bottom: the stack is exhausted here.
      }
      // Every 20th frame is close enough together.
      if (parsed || frames++ % 20 !== 0) return
      try {
        parse('t', text)
        parsed = true
      } catch (e) {
        outcomes.push(e)
      }
    }
    descend()
    expect(parsed).toBe(true)
    return outcomes
  }

  it('is a ParseError, whatever the reason', () => {
    const outcomes = atDepthsNearTheLimit('{{if true}}'.repeat(MAX_NESTING) + '{{end}}'.repeat(MAX_NESTING))
    const parseErrors = outcomes.filter((o): o is ParseError => o instanceof ParseError)
    expect(parseErrors.map((e) => e.detail)).toContain('nested too deeply to parse')
  })
})

describe('columns', () => {
  it('are Go’s execution column for a parse error too: UTF-8 bytes from the line start, from 0', async () => {
    const text = 'line one\néé {{nofunc 1}}'
    // With the functions known when parsing, an unknown one is a parse error; without, an execution error.
    let syntax: unknown
    try {
      parse('t', text, { functions: [] })
    } catch (e) {
      syntax = e
    }
    const exec = await parse('t', text)
      .execute(null)
      .catch((e: unknown) => e)
    expect(syntax).toBeInstanceOf(ParseError)
    expect(exec).toBeInstanceOf(ExecError)
    expect((exec as ExecError).message).toMatch(/^template: t:2:7: /)
    expect(syntax).toMatchObject({ line: 2, column: 7 })
    expect(exec).toMatchObject({ line: 2, column: 7 })
  })

  it('count from 0 at the start of a line, to the token where parsing stopped', () => {
    expect(parseFailure('{{if}}')).toMatchObject({ line: 1, column: 4 })
    expect(parseFailure('x\n{{if}}')).toMatchObject({ line: 2, column: 4 })
    expect(parseFailure('x\né{{if}}')).toMatchObject({ line: 2, column: 6 })
  })
})
