/**
 * Go's text/template/parse/lex_test.go (Go 1.19), every case, adapted to the
 * pull lexer's API; then cases of our own for what Go's file leaves out
 * (comments without emitComment, break/continue outside range, UTF-16
 * positions, line counting, trimming, the other errors). Every expectation was
 * checked against Go 1.19's lexer, with its byte positions turned into UTF-16.
 */
import { describe, expect, it } from 'vitest'
import { ItemType, Lexer, isKeyword, itemTypeName } from '../../../lib/template/parse/lexer'
import type { Item, LexOptions } from '../../../lib/template/parse/lexer'

interface LexTest {
  name: string
  input: string
  items: Item[]
  options?: LexOptions // beyond collect's
}

// mkItem makes an item whose position and line are not checked.
function mkItem(type: ItemType, val: string): Item {
  return { type, pos: 0, val, line: 0 }
}

// pItem makes an item whose position and line are checked.
function pItem(type: ItemType, pos: number, val: string, line: number): Item {
  return { type, pos, val, line }
}

const tDot = mkItem(ItemType.Dot, '.')
const tBlock = mkItem(ItemType.Block, 'block')
const tEOF = mkItem(ItemType.EOF, '')
const tFor = mkItem(ItemType.Identifier, 'for')
const tLeft = mkItem(ItemType.LeftDelim, '{{')
const tLpar = mkItem(ItemType.LeftParen, '(')
const tPipe = mkItem(ItemType.Pipe, '|')
const tQuote = mkItem(ItemType.String, '"abc \\n\\t\\" "')
const tRange = mkItem(ItemType.Range, 'range')
const tRight = mkItem(ItemType.RightDelim, '}}')
const tRpar = mkItem(ItemType.RightParen, ')')
const tSpace = mkItem(ItemType.Space, ' ')
const raw = '`abc\\n\\t\\" `'
const rawNL = '`now is{{\n}}the time`' // Contains newline inside raw quote.
const tRawQuote = mkItem(ItemType.RawString, raw)
const tRawQuoteNL = mkItem(ItemType.RawString, rawNL)

const lexTests: LexTest[] = [
  { name: 'empty', input: '', items: [tEOF] },
  { name: 'spaces', input: ' \t\n', items: [mkItem(ItemType.Text, ' \t\n'), tEOF] },
  { name: 'text', input: 'now is the time', items: [mkItem(ItemType.Text, 'now is the time'), tEOF] },
  {
    name: 'text with comment',
    input: 'hello-{{/* this is a comment */}}-world',
    items: [
      mkItem(ItemType.Text, 'hello-'),
      mkItem(ItemType.Comment, '/* this is a comment */'),
      mkItem(ItemType.Text, '-world'),
      tEOF,
    ],
  },
  {
    name: 'punctuation',
    input: '{{,@% }}',
    items: [
      tLeft,
      mkItem(ItemType.Char, ','),
      mkItem(ItemType.Char, '@'),
      mkItem(ItemType.Char, '%'),
      tSpace,
      tRight,
      tEOF,
    ],
  },
  {
    name: 'parens',
    input: '{{((3))}}',
    items: [tLeft, tLpar, tLpar, mkItem(ItemType.Number, '3'), tRpar, tRpar, tRight, tEOF],
  },
  { name: 'empty action', input: '{{}}', items: [tLeft, tRight, tEOF] },
  { name: 'for', input: '{{for}}', items: [tLeft, tFor, tRight, tEOF] },
  {
    name: 'block',
    input: '{{block "foo" .}}',
    items: [tLeft, tBlock, tSpace, mkItem(ItemType.String, '"foo"'), tSpace, tDot, tRight, tEOF],
  },
  { name: 'quote', input: '{{"abc \\n\\t\\" "}}', items: [tLeft, tQuote, tRight, tEOF] },
  { name: 'raw quote', input: '{{' + raw + '}}', items: [tLeft, tRawQuote, tRight, tEOF] },
  { name: 'raw quote with newline', input: '{{' + rawNL + '}}', items: [tLeft, tRawQuoteNL, tRight, tEOF] },
  {
    name: 'numbers',
    input: '{{1 02 0x14 0X14 -7.2i 1e3 1E3 +1.2e-4 4.2i 1+2i 1_2 0x1.e_fp4 0X1.E_FP4}}',
    items: [
      tLeft,
      mkItem(ItemType.Number, '1'),
      tSpace,
      mkItem(ItemType.Number, '02'),
      tSpace,
      mkItem(ItemType.Number, '0x14'),
      tSpace,
      mkItem(ItemType.Number, '0X14'),
      tSpace,
      mkItem(ItemType.Number, '-7.2i'),
      tSpace,
      mkItem(ItemType.Number, '1e3'),
      tSpace,
      mkItem(ItemType.Number, '1E3'),
      tSpace,
      mkItem(ItemType.Number, '+1.2e-4'),
      tSpace,
      mkItem(ItemType.Number, '4.2i'),
      tSpace,
      mkItem(ItemType.Number, '1+2i'), // Go: itemComplex, which ItemType does not have.
      tSpace,
      mkItem(ItemType.Number, '1_2'),
      tSpace,
      mkItem(ItemType.Number, '0x1.e_fp4'),
      tSpace,
      mkItem(ItemType.Number, '0X1.E_FP4'),
      tRight,
      tEOF,
    ],
  },
  {
    name: 'characters',
    input: "{{'a' '\\n' '\\'' '\\\\' '\\u00FF' '\\xFF' '本'}}",
    items: [
      tLeft,
      mkItem(ItemType.CharConstant, "'a'"),
      tSpace,
      mkItem(ItemType.CharConstant, "'\\n'"),
      tSpace,
      mkItem(ItemType.CharConstant, "'\\''"),
      tSpace,
      mkItem(ItemType.CharConstant, "'\\\\'"),
      tSpace,
      mkItem(ItemType.CharConstant, "'\\u00FF'"),
      tSpace,
      mkItem(ItemType.CharConstant, "'\\xFF'"),
      tSpace,
      mkItem(ItemType.CharConstant, "'本'"),
      tRight,
      tEOF,
    ],
  },
  {
    name: 'bools',
    input: '{{true false}}',
    items: [tLeft, mkItem(ItemType.Bool, 'true'), tSpace, mkItem(ItemType.Bool, 'false'), tRight, tEOF],
  },
  { name: 'dot', input: '{{.}}', items: [tLeft, tDot, tRight, tEOF] },
  { name: 'nil', input: '{{nil}}', items: [tLeft, mkItem(ItemType.Nil, 'nil'), tRight, tEOF] },
  {
    name: 'dots',
    input: '{{.x . .2 .x.y.z}}',
    items: [
      tLeft,
      mkItem(ItemType.Field, '.x'),
      tSpace,
      tDot,
      tSpace,
      mkItem(ItemType.Number, '.2'),
      tSpace,
      mkItem(ItemType.Field, '.x'),
      mkItem(ItemType.Field, '.y'),
      mkItem(ItemType.Field, '.z'),
      tRight,
      tEOF,
    ],
  },
  {
    name: 'keywords',
    input: '{{range if else end with}}',
    items: [
      tLeft,
      mkItem(ItemType.Range, 'range'),
      tSpace,
      mkItem(ItemType.If, 'if'),
      tSpace,
      mkItem(ItemType.Else, 'else'),
      tSpace,
      mkItem(ItemType.End, 'end'),
      tSpace,
      mkItem(ItemType.With, 'with'),
      tRight,
      tEOF,
    ],
  },
  {
    name: 'variables',
    input: '{{$c := printf $ $hello $23 $ $var.Field .Method}}',
    items: [
      tLeft,
      mkItem(ItemType.Variable, '$c'),
      tSpace,
      mkItem(ItemType.Declare, ':='),
      tSpace,
      mkItem(ItemType.Identifier, 'printf'),
      tSpace,
      mkItem(ItemType.Variable, '$'),
      tSpace,
      mkItem(ItemType.Variable, '$hello'),
      tSpace,
      mkItem(ItemType.Variable, '$23'),
      tSpace,
      mkItem(ItemType.Variable, '$'),
      tSpace,
      mkItem(ItemType.Variable, '$var'),
      mkItem(ItemType.Field, '.Field'),
      tSpace,
      mkItem(ItemType.Field, '.Method'),
      tRight,
      tEOF,
    ],
  },
  {
    name: 'variable invocation',
    input: '{{$x 23}}',
    items: [tLeft, mkItem(ItemType.Variable, '$x'), tSpace, mkItem(ItemType.Number, '23'), tRight, tEOF],
  },
  {
    name: 'pipeline',
    input: 'intro {{echo hi 1.2 |noargs|args 1 "hi"}} outro',
    items: [
      mkItem(ItemType.Text, 'intro '),
      tLeft,
      mkItem(ItemType.Identifier, 'echo'),
      tSpace,
      mkItem(ItemType.Identifier, 'hi'),
      tSpace,
      mkItem(ItemType.Number, '1.2'),
      tSpace,
      tPipe,
      mkItem(ItemType.Identifier, 'noargs'),
      tPipe,
      mkItem(ItemType.Identifier, 'args'),
      tSpace,
      mkItem(ItemType.Number, '1'),
      tSpace,
      mkItem(ItemType.String, '"hi"'),
      tRight,
      mkItem(ItemType.Text, ' outro'),
      tEOF,
    ],
  },
  {
    name: 'declaration',
    input: '{{$v := 3}}',
    items: [
      tLeft,
      mkItem(ItemType.Variable, '$v'),
      tSpace,
      mkItem(ItemType.Declare, ':='),
      tSpace,
      mkItem(ItemType.Number, '3'),
      tRight,
      tEOF,
    ],
  },
  {
    name: '2 declarations',
    input: '{{$v , $w := 3}}',
    items: [
      tLeft,
      mkItem(ItemType.Variable, '$v'),
      tSpace,
      mkItem(ItemType.Char, ','),
      tSpace,
      mkItem(ItemType.Variable, '$w'),
      tSpace,
      mkItem(ItemType.Declare, ':='),
      tSpace,
      mkItem(ItemType.Number, '3'),
      tRight,
      tEOF,
    ],
  },
  {
    name: 'field of parenthesized expression',
    input: '{{(.X).Y}}',
    items: [tLeft, tLpar, mkItem(ItemType.Field, '.X'), tRpar, mkItem(ItemType.Field, '.Y'), tRight, tEOF],
  },
  {
    name: 'trimming spaces before and after',
    input: 'hello- {{- 3 -}} -world',
    items: [
      mkItem(ItemType.Text, 'hello-'),
      tLeft,
      mkItem(ItemType.Number, '3'),
      tRight,
      mkItem(ItemType.Text, '-world'),
      tEOF,
    ],
  },
  {
    name: 'trimming spaces before and after comment',
    input: 'hello- {{- /* hello */ -}} -world',
    items: [
      mkItem(ItemType.Text, 'hello-'),
      mkItem(ItemType.Comment, '/* hello */'),
      mkItem(ItemType.Text, '-world'),
      tEOF,
    ],
  },
  // errors
  {
    name: 'badchar',
    input: '#{{\x01}}',
    items: [mkItem(ItemType.Text, '#'), tLeft, mkItem(ItemType.Error, 'unrecognized character in action: U+0001')],
  },
  { name: 'unclosed action', input: '{{', items: [tLeft, mkItem(ItemType.Error, 'unclosed action')] },
  { name: 'EOF in action', input: '{{range', items: [tLeft, tRange, mkItem(ItemType.Error, 'unclosed action')] },
  { name: 'unclosed quote', input: '{{"\n"}}', items: [tLeft, mkItem(ItemType.Error, 'unterminated quoted string')] },
  {
    name: 'unclosed raw quote',
    input: '{{`xx}}',
    items: [tLeft, mkItem(ItemType.Error, 'unterminated raw quoted string')],
  },
  {
    name: 'unclosed char constant',
    input: "{{'\n}}",
    items: [tLeft, mkItem(ItemType.Error, 'unterminated character constant')],
  },
  { name: 'bad number', input: '{{3k}}', items: [tLeft, mkItem(ItemType.Error, 'bad number syntax: "3k"')] },
  {
    name: 'unclosed paren',
    input: '{{(3}}',
    items: [tLeft, tLpar, mkItem(ItemType.Number, '3'), mkItem(ItemType.Error, 'unclosed left paren')],
  },
  {
    name: 'extra right paren',
    input: '{{3)}}',
    items: [tLeft, mkItem(ItemType.Number, '3'), tRpar, mkItem(ItemType.Error, "unexpected right paren U+0029 ')'")],
  },

  // Fixed bugs
  // Many elements in an action blew the lookahead until
  // we made lexInsideAction not loop.
  {
    name: 'long pipeline deadlock',
    input: '{{|||||}}',
    items: [tLeft, tPipe, tPipe, tPipe, tPipe, tPipe, tRight, tEOF],
  },
  {
    name: 'text with bad comment',
    input: 'hello-{{/*/}}-world',
    items: [mkItem(ItemType.Text, 'hello-'), mkItem(ItemType.Error, 'unclosed comment')],
  },
  {
    name: 'text with comment close separated from delim',
    input: 'hello-{{/* */ }}-world',
    items: [mkItem(ItemType.Text, 'hello-'), mkItem(ItemType.Error, 'comment ends before closing delimiter')],
  },
  // This one is an error that we can't catch because it breaks templates with
  // minimized JavaScript. Should have fixed it before Go 1.1.
  {
    name: 'unmatched right delimiter',
    input: 'hello-{.}}-world',
    items: [mkItem(ItemType.Text, 'hello-{.}}-world'), tEOF],
  },
]

// collect gathers the emitted items into a list. As Go's collect, it sets emitComment, breakOK and continueOK
// unless told otherwise.
function collect(input: string, options: LexOptions = {}): Item[] {
  const l = new Lexer('test', input, { emitComment: true, breakOK: true, continueOK: true, ...options })
  const items: Item[] = []
  // A lexer that never ends would hang the test; no input of n code units has more than n+2 items.
  for (let n = 0; n <= input.length + 2; n++) {
    const item = l.nextItem()
    items.push(item)
    if (item.type === ItemType.EOF || item.type === ItemType.Error) return items
  }
  throw new Error(`no EOF or error after ${items.length} items`)
}

// Items made printable, so a failure shows the type names; pos and line only when checked.
function show(items: Item[], checkPos: boolean): unknown[] {
  return items.map((i) =>
    checkPos
      ? { type: itemTypeName(i.type), pos: i.pos, val: i.val, line: i.line }
      : { type: itemTypeName(i.type), val: i.val },
  )
}

function expectItems(got: Item[], want: Item[], checkPos: boolean): void {
  expect(show(got, checkPos)).toStrictEqual(show(want, checkPos))
}

describe('Go lex_test.go', () => {
  describe('TestLex', () => {
    it.each(lexTests)('$name', ({ input, items }) => {
      expectItems(collect(input), items, false)
    })
  })

  // Some easy cases from above, but with delimiters $$ and @@
  const tLeftDelim = mkItem(ItemType.LeftDelim, '$$')
  const tRightDelim = mkItem(ItemType.RightDelim, '@@')
  const lexDelimTests: LexTest[] = [
    {
      name: 'punctuation',
      input: '$$,@%{{}}@@',
      items: [
        tLeftDelim,
        mkItem(ItemType.Char, ','),
        mkItem(ItemType.Char, '@'),
        mkItem(ItemType.Char, '%'),
        mkItem(ItemType.Char, '{'),
        mkItem(ItemType.Char, '{'),
        mkItem(ItemType.Char, '}'),
        mkItem(ItemType.Char, '}'),
        tRightDelim,
        tEOF,
      ],
    },
    { name: 'empty action', input: '$$@@', items: [tLeftDelim, tRightDelim, tEOF] },
    { name: 'for', input: '$$for@@', items: [tLeftDelim, tFor, tRightDelim, tEOF] },
    { name: 'quote', input: '$$"abc \\n\\t\\" "@@', items: [tLeftDelim, tQuote, tRightDelim, tEOF] },
    { name: 'raw quote', input: '$$' + raw + '@@', items: [tLeftDelim, tRawQuote, tRightDelim, tEOF] },
  ]

  describe('TestDelims', () => {
    it.each(lexDelimTests)('$name', ({ input, items }) => {
      expectItems(collect(input, { leftDelim: '$$', rightDelim: '@@' }), items, false)
    })
  })

  it('TestDelimsAlphaNumeric: right delimiter with alphanumeric start', () => {
    expectItems(
      collect('{{hub .host hub}}', { leftDelim: '{{hub', rightDelim: 'hub}}' }),
      [
        mkItem(ItemType.LeftDelim, '{{hub'),
        mkItem(ItemType.Space, ' '),
        mkItem(ItemType.Field, '.host'),
        mkItem(ItemType.Space, ' '),
        mkItem(ItemType.RightDelim, 'hub}}'),
        tEOF,
      ],
      false,
    )
  })

  // The other tests don't check position, to make the test cases easier to construct.
  // This one does.
  const lexPosTests: LexTest[] = [
    { name: 'empty', input: '', items: [pItem(ItemType.EOF, 0, '', 1)] },
    {
      name: 'punctuation',
      input: '{{,@%#}}',
      items: [
        pItem(ItemType.LeftDelim, 0, '{{', 1),
        pItem(ItemType.Char, 2, ',', 1),
        pItem(ItemType.Char, 3, '@', 1),
        pItem(ItemType.Char, 4, '%', 1),
        pItem(ItemType.Char, 5, '#', 1),
        pItem(ItemType.RightDelim, 6, '}}', 1),
        pItem(ItemType.EOF, 8, '', 1),
      ],
    },
    {
      name: 'sample',
      input: '0123{{hello}}xyz',
      items: [
        pItem(ItemType.Text, 0, '0123', 1),
        pItem(ItemType.LeftDelim, 4, '{{', 1),
        pItem(ItemType.Identifier, 6, 'hello', 1),
        pItem(ItemType.RightDelim, 11, '}}', 1),
        pItem(ItemType.Text, 13, 'xyz', 1),
        pItem(ItemType.EOF, 16, '', 1),
      ],
    },
    {
      name: 'trimafter',
      input: '{{x -}}\n{{y}}',
      items: [
        pItem(ItemType.LeftDelim, 0, '{{', 1),
        pItem(ItemType.Identifier, 2, 'x', 1),
        pItem(ItemType.RightDelim, 5, '}}', 1),
        pItem(ItemType.LeftDelim, 8, '{{', 2),
        pItem(ItemType.Identifier, 10, 'y', 2),
        pItem(ItemType.RightDelim, 11, '}}', 2),
        pItem(ItemType.EOF, 13, '', 2),
      ],
    },
    {
      name: 'trimbefore',
      input: '{{x}}\n{{- y}}',
      items: [
        pItem(ItemType.LeftDelim, 0, '{{', 1),
        pItem(ItemType.Identifier, 2, 'x', 1),
        pItem(ItemType.RightDelim, 3, '}}', 1),
        pItem(ItemType.LeftDelim, 6, '{{', 2),
        pItem(ItemType.Identifier, 10, 'y', 2),
        pItem(ItemType.RightDelim, 11, '}}', 2),
        pItem(ItemType.EOF, 13, '', 2),
      ],
    },
  ]

  describe('TestPos', () => {
    it.each(lexPosTests)('$name', ({ input, items }) => {
      expectItems(collect(input), items, true)
    })
  })

  // Go's TestShutdown checks that a parse error drains the lexing goroutine. A pull lexer has no goroutine;
  // what is left to check is that it stops: after EOF or an error, nextItem returns EOF for ever.
  describe('TestShutdown', () => {
    it('returns EOF after EOF', () => {
      const text = 'erroneous{{define}}{{else}}1234'
      const l = new Lexer('foo', text, { leftDelim: '{{', rightDelim: '}}', breakOK: true, continueOK: true })
      const types: ItemType[] = []
      for (let i = 0; i < 9; i++) types.push(l.nextItem().type)
      expect(types.map(itemTypeName)).toStrictEqual([
        'text',
        'left delim',
        'define',
        'right delim',
        'left delim',
        'else',
        'right delim',
        'text',
        'EOF',
      ])
      for (let i = 0; i < 3; i++) expect(l.nextItem()).toStrictEqual(pItem(ItemType.EOF, text.length, '', 1))
    })

    it('returns EOF after an error', () => {
      const l = new Lexer('foo', 'a\n{{3)}}b')
      expect(show([l.nextItem(), l.nextItem(), l.nextItem(), l.nextItem(), l.nextItem()], true)).toStrictEqual(
        show(
          [
            pItem(ItemType.Text, 0, 'a\n', 1),
            pItem(ItemType.LeftDelim, 2, '{{', 2),
            pItem(ItemType.Number, 4, '3', 2),
            pItem(ItemType.RightParen, 5, ')', 2),
            pItem(ItemType.Error, 6, "unexpected right paren U+0029 ')'", 2),
          ],
          true,
        ),
      )
      for (let i = 0; i < 3; i++) expect(l.nextItem()).toStrictEqual(pItem(ItemType.EOF, 6, '', 2))
    })

    it('returns EOF after an error on an empty stream too', () => {
      const l = new Lexer('foo', '{{/*')
      expect(l.nextItem()).toStrictEqual(pItem(ItemType.Error, 2, 'unclosed comment', 1))
      expect(l.nextItem().type).toBe(ItemType.EOF)
      expect(l.nextItem().type).toBe(ItemType.EOF)
    })
  })
})

describe('beyond lex_test.go', () => {
  describe('comments', () => {
    const cases: LexTest[] = [
      {
        name: 'a comment without emitComment is dropped',
        input: 'hello-{{/* this is a comment */}}-world',
        options: { emitComment: false },
        items: [
          pItem(ItemType.Text, 0, 'hello-', 1),
          pItem(ItemType.Text, 33, '-world', 1),
          pItem(ItemType.EOF, 39, '', 1),
        ],
      },
      {
        name: 'a trimmed comment without emitComment is dropped',
        input: 'hello- {{- /* hello */ -}} -world',
        options: { emitComment: false },
        items: [
          pItem(ItemType.Text, 0, 'hello-', 1),
          pItem(ItemType.Text, 27, '-world', 1),
          pItem(ItemType.EOF, 33, '', 1),
        ],
      },
      {
        // As Go counts them: the newlines of an emitted comment are not counted (Go's emit does not count).
        name: 'lines after an emitted comment',
        input: '{{/*\na\n*/}}x{{y}}',
        options: { emitComment: true },
        items: [
          pItem(ItemType.Comment, 2, '/*\na\n*/', 1),
          pItem(ItemType.Text, 11, 'x', 1),
          pItem(ItemType.LeftDelim, 12, '{{', 1),
          pItem(ItemType.Identifier, 14, 'y', 1),
          pItem(ItemType.RightDelim, 15, '}}', 1),
          pItem(ItemType.EOF, 17, '', 1),
        ],
      },
      {
        name: 'lines after a dropped comment',
        input: '{{/*\na\n*/}}x{{y}}',
        options: { emitComment: false },
        items: [
          pItem(ItemType.Text, 11, 'x', 3),
          pItem(ItemType.LeftDelim, 12, '{{', 3),
          pItem(ItemType.Identifier, 14, 'y', 3),
          pItem(ItemType.RightDelim, 15, '}}', 3),
          pItem(ItemType.EOF, 17, '', 3),
        ],
      },
      {
        name: 'a trim marker needs a space: {{-/* is a number and punctuation',
        input: '{{-/* c */}}',
        options: {},
        items: [
          pItem(ItemType.LeftDelim, 0, '{{', 1),
          pItem(ItemType.Number, 2, '-', 1),
          pItem(ItemType.Char, 3, '/', 1),
          pItem(ItemType.Char, 4, '*', 1),
          pItem(ItemType.Space, 5, ' ', 1),
          pItem(ItemType.Identifier, 6, 'c', 1),
          pItem(ItemType.Space, 7, ' ', 1),
          pItem(ItemType.Char, 8, '*', 1),
          pItem(ItemType.Char, 9, '/', 1),
          pItem(ItemType.RightDelim, 10, '}}', 1),
          pItem(ItemType.EOF, 12, '', 1),
        ],
      },
      {
        name: 'a trim marker needs a space: */-}} ends the comment before the delimiter',
        input: '{{/* c */-}}',
        options: {},
        items: [pItem(ItemType.Error, 2, 'comment ends before closing delimiter', 1)],
      },
    ]
    it.each(cases)('$name', ({ input, options, items }) => {
      expectItems(collect(input, options), items, true)
    })
  })

  describe('break and continue', () => {
    it('are identifiers unless allowed', () => {
      expectItems(
        collect('{{break}}{{continue}}', { breakOK: false, continueOK: false }),
        [
          tLeft,
          mkItem(ItemType.Identifier, 'break'),
          tRight,
          tLeft,
          mkItem(ItemType.Identifier, 'continue'),
          tRight,
          tEOF,
        ],
        false,
      )
    })

    it('are keywords when allowed, each on its own flag', () => {
      expectItems(
        collect('{{break}}{{continue}}', { breakOK: true, continueOK: false }),
        [tLeft, mkItem(ItemType.Break, 'break'), tRight, tLeft, mkItem(ItemType.Identifier, 'continue'), tRight, tEOF],
        false,
      )
      expectItems(
        collect('{{break}}{{continue}}', { breakOK: false, continueOK: true }),
        [
          tLeft,
          mkItem(ItemType.Identifier, 'break'),
          tRight,
          tLeft,
          mkItem(ItemType.Continue, 'continue'),
          tRight,
          tEOF,
        ],
        false,
      )
    })

    it('default to off', () => {
      const l = new Lexer('t', '{{break}}')
      l.nextItem()
      expect(l.nextItem().type).toBe(ItemType.Identifier)
    })
  })

  describe('positions and lines', () => {
    const cases: LexTest[] = [
      {
        name: 'UTF-16 offsets past non-ASCII text, fields and variables',
        input: 'héllo {{.naïve $ça 本}}',
        items: [
          pItem(ItemType.Text, 0, 'héllo ', 1),
          pItem(ItemType.LeftDelim, 6, '{{', 1),
          pItem(ItemType.Field, 8, '.naïve', 1),
          pItem(ItemType.Space, 14, ' ', 1),
          pItem(ItemType.Variable, 15, '$ça', 1),
          pItem(ItemType.Space, 18, ' ', 1),
          pItem(ItemType.Identifier, 19, '本', 1),
          pItem(ItemType.RightDelim, 20, '}}', 1),
          pItem(ItemType.EOF, 22, '', 1),
        ],
      },
      {
        name: 'a surrogate pair is one rune',
        input: '😀{{.x}}\n{{$😀}}',
        items: [
          pItem(ItemType.Text, 0, '😀', 1),
          pItem(ItemType.LeftDelim, 2, '{{', 1),
          pItem(ItemType.Field, 4, '.x', 1),
          pItem(ItemType.RightDelim, 6, '}}', 1),
          pItem(ItemType.Text, 8, '\n', 1),
          pItem(ItemType.LeftDelim, 9, '{{', 2),
          pItem(ItemType.Error, 11, "bad character U+1F600 '😀'", 2),
        ],
      },
      {
        name: 'letters outside the BMP in identifiers',
        input: '{{$𝒳 .𝒳𝒴 𝒳}}',
        items: [
          pItem(ItemType.LeftDelim, 0, '{{', 1),
          pItem(ItemType.Variable, 2, '$𝒳', 1),
          pItem(ItemType.Space, 5, ' ', 1),
          pItem(ItemType.Field, 6, '.𝒳𝒴', 1),
          pItem(ItemType.Space, 11, ' ', 1),
          pItem(ItemType.Identifier, 12, '𝒳', 1),
          pItem(ItemType.RightDelim, 14, '}}', 1),
          pItem(ItemType.EOF, 16, '', 1),
        ],
      },
      {
        name: 'newlines in a raw string',
        input: '{{`a\nb` x}}\n{{y}}',
        items: [
          pItem(ItemType.LeftDelim, 0, '{{', 1),
          pItem(ItemType.RawString, 2, '`a\nb`', 1),
          pItem(ItemType.Space, 7, ' ', 2),
          pItem(ItemType.Identifier, 8, 'x', 2),
          pItem(ItemType.RightDelim, 9, '}}', 2),
          pItem(ItemType.Text, 11, '\n', 2),
          pItem(ItemType.LeftDelim, 12, '{{', 3),
          pItem(ItemType.Identifier, 14, 'y', 3),
          pItem(ItemType.RightDelim, 15, '}}', 3),
          pItem(ItemType.EOF, 17, '', 3),
        ],
      },
      {
        name: 'newlines in space and trimmed text',
        input: 'a \n{{- x -}}\n b\n{{y}}',
        items: [
          pItem(ItemType.Text, 0, 'a', 1),
          pItem(ItemType.LeftDelim, 3, '{{', 2),
          pItem(ItemType.Identifier, 7, 'x', 2),
          pItem(ItemType.RightDelim, 10, '}}', 2),
          pItem(ItemType.Text, 14, 'b\n', 3),
          pItem(ItemType.LeftDelim, 16, '{{', 4),
          pItem(ItemType.Identifier, 18, 'y', 4),
          pItem(ItemType.RightDelim, 19, '}}', 4),
          pItem(ItemType.EOF, 21, '', 4),
        ],
      },
      {
        name: 'a newline as the space of a trim marker',
        input: '{{x\n-}}\n\ny',
        items: [
          pItem(ItemType.LeftDelim, 0, '{{', 1),
          pItem(ItemType.Identifier, 2, 'x', 1),
          pItem(ItemType.RightDelim, 5, '}}', 2),
          pItem(ItemType.Text, 9, 'y', 4),
          pItem(ItemType.EOF, 10, '', 4),
        ],
      },
      {
        name: 'a run of spaces with newlines',
        input: '{{\t\r\n}}',
        items: [
          pItem(ItemType.LeftDelim, 0, '{{', 1),
          pItem(ItemType.Space, 2, '\t\r\n', 1),
          pItem(ItemType.RightDelim, 5, '}}', 2),
          pItem(ItemType.EOF, 7, '', 2),
        ],
      },
    ]
    it.each(cases)('$name', ({ input, items }) => {
      expectItems(collect(input), items, true)
    })
  })

  describe('more items and errors', () => {
    const cases: LexTest[] = [
      {
        name: 'trim markers trim only ASCII space, as Go does',
        input: 'a\u00a0 {{- 1 -}} \u00a0b',
        items: [
          mkItem(ItemType.Text, 'a\u00a0'),
          tLeft,
          mkItem(ItemType.Number, '1'),
          tRight,
          mkItem(ItemType.Text, '\u00a0b'),
          tEOF,
        ],
      },
      {
        name: 'trim markers with other delimiters',
        input: '$$- x -@@ y',
        options: { leftDelim: '$$', rightDelim: '@@' },
        items: [
          mkItem(ItemType.LeftDelim, '$$'),
          mkItem(ItemType.Identifier, 'x'),
          mkItem(ItemType.RightDelim, '@@'),
          mkItem(ItemType.Text, 'y'),
          tEOF,
        ],
      },
      {
        name: 'a minus without a space is a sign',
        input: '{{-3}}{{3 -}}{{3-}}',
        items: [
          tLeft,
          mkItem(ItemType.Number, '-3'),
          tRight,
          tLeft,
          mkItem(ItemType.Number, '3'),
          tRight,
          tLeft,
          mkItem(ItemType.Error, 'bad number syntax: "3-"'),
        ],
      },
      {
        name: 'number prefixes and exponents',
        input: '{{0b101 0o17 1e+3 -.5 089 0x1p-2}}',
        items: [
          tLeft,
          mkItem(ItemType.Number, '0b101'),
          tSpace,
          mkItem(ItemType.Number, '0o17'),
          tSpace,
          mkItem(ItemType.Number, '1e+3'),
          tSpace,
          mkItem(ItemType.Number, '-.5'),
          tSpace,
          mkItem(ItemType.Number, '089'),
          tSpace,
          mkItem(ItemType.Number, '0x1p-2'),
          tRight,
          tEOF,
        ],
      },
      {
        name: 'a hex float with an imaginary part',
        input: '{{0x1p-2i}}',
        items: [tLeft, mkItem(ItemType.Number, '0x1p-2i'), tRight, tEOF],
      },
      {
        name: 'p exponent only in hex',
        input: '{{1p3}}',
        items: [tLeft, mkItem(ItemType.Error, 'bad number syntax: "1p"')],
      },
      {
        name: 'e is a hex digit, so the sign starts a complex part',
        input: '{{0x1e+3}}',
        items: [tLeft, mkItem(ItemType.Error, 'bad number syntax: "0x1e+3"')],
      },
      {
        name: 'assignment',
        input: '{{$x = 3}}',
        items: [
          tLeft,
          mkItem(ItemType.Variable, '$x'),
          tSpace,
          mkItem(ItemType.Assign, '='),
          tSpace,
          mkItem(ItemType.Number, '3'),
          tRight,
          tEOF,
        ],
      },
      {
        name: 'unclosed left paren after fields',
        input: '{{.x.y(}}',
        items: [
          tLeft,
          mkItem(ItemType.Field, '.x'),
          mkItem(ItemType.Field, '.y'),
          tLpar,
          mkItem(ItemType.Error, 'unclosed left paren'),
        ],
      },
      {
        name: 'escaped closing quote',
        input: '{{"a\\"}}',
        items: [tLeft, mkItem(ItemType.Error, 'unterminated quoted string')],
      },
      {
        name: 'escaped newline in a char constant',
        input: "{{'\\\n'}}",
        items: [tLeft, mkItem(ItemType.Error, 'unterminated character constant')],
      },
      {
        name: 'complex without i',
        input: '{{1+2}}',
        items: [tLeft, mkItem(ItemType.Error, 'bad number syntax: "1+2"')],
      },
      {
        name: 'letter after number',
        input: '{{3é}}',
        items: [tLeft, mkItem(ItemType.Error, 'bad number syntax: "3é"')],
      },
      {
        name: 'non-ASCII punctuation',
        input: '{{€}}',
        items: [tLeft, mkItem(ItemType.Error, "unrecognized character in action: U+20AC '€'")],
      },
      {
        name: 'non-printable non-ASCII',
        input: '{{\u00a0}}',
        items: [tLeft, mkItem(ItemType.Error, 'unrecognized character in action: U+00A0')],
      },
      { name: 'arithmetic', input: '{{$x+2}}', items: [tLeft, mkItem(ItemType.Error, "bad character U+002B '+'")] },
      {
        name: 'bad character after a field',
        input: '{{.x;}}',
        items: [tLeft, mkItem(ItemType.Error, "bad character U+003B ';'")],
      },
      { name: 'colon without equals', input: '{{:}}', items: [tLeft, mkItem(ItemType.Error, 'expected :=')] },
    ]
    it.each(cases)('$name', ({ input, options, items }) => {
      expectItems(collect(input, options), items, false)
    })
  })

  describe('itemTypeName and isKeyword', () => {
    it('names the types as lex_test.go does', () => {
      expect(
        [ItemType.Error, ItemType.CharConstant, ItemType.Declare, ItemType.LeftDelim, ItemType.Dot, ItemType.With].map(
          itemTypeName,
        ),
      ).toStrictEqual(['error', 'charconst', ':=', 'left delim', '.', 'with'])
    })

    it('tells keywords from the rest', () => {
      const keywords = [
        ItemType.Block,
        ItemType.Break,
        ItemType.Continue,
        ItemType.Dot,
        ItemType.Define,
        ItemType.Else,
        ItemType.End,
        ItemType.If,
        ItemType.Nil,
        ItemType.Range,
        ItemType.Template,
        ItemType.With,
      ]
      for (const t of keywords) expect(isKeyword(t), itemTypeName(t)).toBe(true)
      for (const t of [ItemType.Keyword, ItemType.Variable, ItemType.Identifier, ItemType.EOF, ItemType.Error]) {
        expect(isKeyword(t), itemTypeName(t)).toBe(false)
      }
    })
  })
})
