// The playground editor's tokenizer (public/playground/highlight.js, a plain ES module the page loads): Go
// text/template syntax as token types for the highlighting, the bracket pair at a caret, and its bound.
import { describe, expect, it } from 'vitest'
import { MAX_HIGHLIGHT, matchAt, tokenize } from '../../public/playground/highlight.js'

interface Token {
  type: string
  start: number
  end: number
}
const tokensOf = (text: string): Token[] => tokenize(text) as Token[]

/** `type:text` for each token but the spaces inside actions. */
function typed(text: string): string[] {
  return tokensOf(text)
    .filter((t) => t.type !== 'space')
    .map((t) => `${t.type}:${text.slice(t.start, t.end)}`)
}

describe('tokenize', () => {
  it('types every part of an action', () => {
    expect(typed('Hi {{if eq .a.b $x}}{{printf "%d" 1.5e+3 | len}}{{else}}{{(f nil true)}}{{end}}!')).toEqual([
      'text:Hi ',
      'delim:{{',
      'keyword:if',
      'function:eq',
      'field:.a',
      'field:.b',
      'variable:$x',
      'delim:}}',
      'delim:{{',
      'function:printf',
      'string:"%d"',
      'number:1.5e+3',
      'pipe:|',
      'function:len',
      'delim:}}',
      'delim:{{',
      'keyword:else',
      'delim:}}',
      'delim:{{',
      'paren:(',
      'function:f',
      'constant:nil',
      'constant:true',
      'paren:)',
      'delim:}}',
      'delim:{{',
      'keyword:end',
      'delim:}}',
      'text:!',
    ])
  })

  it('knows trim markers, comments, declarations, raw strings and escapes', () => {
    expect(typed('a {{- /* note */ -}} b {{- $v := `r\n` -}} {{"q\\"x" -1 .}}')).toEqual([
      'text:a ',
      'comment:{{- /* note */ -}}',
      'text: b ',
      'delim:{{-',
      'variable:$v',
      'operator::=',
      'string:`r\n`',
      'delim:-}}',
      'text: ',
      'delim:{{',
      'string:"q\\"x"',
      'number:-1',
      'field:.',
      'delim:}}',
    ])
    // Without the space, `-` belongs to what follows (a number), not to the delimiter.
    expect(typed('{{3 -}}')).toEqual(['delim:{{', 'number:3', 'delim:-}}'])
    expect(typed('{{-3}}')).toEqual(['delim:{{', 'number:-3', 'delim:}}'])
  })

  it('never fails: unclosed actions, strings and comments, and stray characters are tokens too', () => {
    expect(typed('x {{.a "open')).toEqual(['text:x ', 'delim:{{', 'field:.a', 'error:"open'])
    expect(typed('{{/* never closed')).toEqual(['comment:{{/* never closed'])
    expect(typed('{{ # }}')).toEqual(['delim:{{', 'error:#', 'delim:}}'])
  })

  it('covers the text end to end, in order', () => {
    const text = 'a {{range $i, $e := .list}}{{$i}}: {{$e.name | printf "%q"}}\n{{end}}\n{{/* c */}}z'
    let at = 0
    for (const token of tokensOf(text)) {
      expect(token.start).toBe(at)
      expect(token.end).toBeGreaterThan(token.start)
      at = token.end
    }
    expect(at).toBe(text.length)
  })

  it('highlights nothing past MAX_HIGHLIGHT characters', () => {
    expect(tokenize('{{.a}}'.padEnd(MAX_HIGHLIGHT, ' '))).not.toBeNull()
    expect(tokenize('{{.a}}'.padEnd(MAX_HIGHLIGHT + 1, ' '))).toBeNull()
  })
})

describe('matchAt', () => {
  const text = 'a {{ f (g (h .x)) }} b {{.y'
  const tokens = tokensOf(text)
  /** The texts of the pair at `caret`, or null. */
  function pair(caret: number): [string | null, string | null] | null {
    const match = matchAt(tokens, text, caret) as { open: number | null; close: number | null } | null
    if (!match) return null
    const textOf = (i: number | null) =>
      i === null ? null : `${text.slice(tokens[i]!.start, tokens[i]!.end)}@${tokens[i]!.start}`
    return [textOf(match.open), textOf(match.close)]
  }

  it("pairs a delimiter with its action's other one, and a paren with its partner", () => {
    expect(pair(text.indexOf('{{') + 2)).toEqual(['{{@2', '}}@18'])
    expect(pair(text.indexOf('}}'))).toEqual(['{{@2', '}}@18'])
    expect(pair(text.indexOf('('))).toEqual(['(@7', ')@16'])
    expect(pair(text.indexOf('(') + 1)).toEqual(['(@7', ')@16'])
    expect(pair(text.indexOf(')') + 1)).toEqual(['(@10', ')@15'])
  })

  it('says when the partner is missing, and null away from brackets', () => {
    expect(pair(text.lastIndexOf('{{') + 2)).toEqual([`{{@${text.lastIndexOf('{{')}`, null])
    expect(pair(0)).toBeNull()
    expect(pair(text.indexOf('.x') + 1)).toBeNull()
  })
})
