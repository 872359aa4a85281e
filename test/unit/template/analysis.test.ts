// The static analysis is linear in the template set: each template is
// summarised once, whatever dot it is called with, and the paths those
// summaries stand for are built within a budget proportional to the set's
// size, past which everything is loaded and nothing required.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { parse } from '../../../lib/template'

/** `levels` templates, each reading .v and calling the next with .a and with .b: 2^levels paths. */
function doubling(levels: number, main: string): string {
  let text = ''
  for (let i = 0; i < levels; i++) {
    text += `{{define "d${i}"}}{{.v}}{{template "d${i + 1}" .a}}{{template "d${i + 1}" .b}}{{end}}`
  }
  return `${text}{{define "d${levels}"}}{{lookup .leaf}}{{end}}${main}`
}

describe('the analysis of templates calling one another', () => {
  // Before: one walk per (template, dot), 2^22 of them: out of memory.
  it.each([22, 40, 1000])(
    'of %i levels each calling the next twice, under {{if false}}, loads everything and requires nothing',
    (levels) => {
      expect(parse('t', doubling(levels, '{{if false}}{{template "d0" .}}{{end}}')).analysis).toEqual({
        paths: [[]],
        required: [],
        functions: ['lookup'],
      })
    },
  )

  it('of 22 levels called unconditionally gives up the same way', () => {
    expect(parse('t', doubling(22, '{{.top}}{{template "d0" .x}}')).analysis).toEqual({
      paths: [[]],
      required: [],
      functions: ['lookup'],
    })
  })

  it('lists every path exactly while they fit in the budget', () => {
    const a = parse('t', doubling(3, '{{template "d0" .x}}')).analysis
    // x, then `depth` steps of .a or .b.
    const at = (depth: number, prefix = ['x']): string[][] =>
      depth === 0 ? [prefix] : ['a', 'b'].flatMap((k) => at(depth - 1, [...prefix, k]))
    const reads = [...[0, 1, 2].flatMap((d) => at(d).map((p) => [...p, 'v'])), ...at(3).map((p) => [...p, 'leaf'])]
    const args = [0, 1, 2, 3].flatMap((d) => at(d))
    const sorted = (paths: readonly (readonly string[])[]) => paths.map((p) => p.join('.')).sort()
    expect(sorted(a.paths)).toEqual(sorted(reads))
    expect(sorted(a.required)).toEqual(sorted([...reads, ...args]))
    expect(a.functions).toEqual(['lookup'])
  })

  it('summarises a template once for all the dots it is called with', () => {
    const calls = Array.from({ length: 300 }, (_, i) => `{{template "d" .k${i}}}`).join('')
    const a = parse('t', `{{define "d"}}{{.x}}{{.y}}{{end}}${calls}`).analysis
    expect(a.paths).toHaveLength(600)
    expect(a.paths[0]).toEqual(['k0', 'x'])
  })

  it('loads only what a template reads of its argument, however often it is called', () => {
    const a = parse(
      't',
      '{{define "d"}}{{.x}}{{end}}{{template "d" .a}}{{template "d" .a}}{{template "e" .b}}',
    ).analysis
    expect(a.paths).toEqual([['a', 'x'], ['b']])
  })
})

describe('the analysis of many variables and branches', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  // Before: every if, with, range and parenthesised pipeline copied every variable in scope, and top-level
  // declarations piled up: 8,000 variables then 8,000 ifs (240 KB) took 4.4 s to analyse.
  it('does work linear in the template: no copy of the variables at each branch', () => {
    const n = 1000
    const declarations = Array.from({ length: n }, (_, i) => `{{$v${i} := .a${i}}}`).join('')
    const t = parse('t', declarations + '{{if 1}}{{end}}{{print (1)}}'.repeat(n) + '{{$v7.x}}')
    const set = vi.spyOn(Map.prototype, 'set')
    const a = t.analysis
    expect(set.mock.calls.length).toBeLessThan(10 * n)
    expect(a.paths).toHaveLength(n)
    expect(a.paths).toContainEqual(['a7'])
  })

  it('undoes what a branch or parentheses declare or assign when they end', () => {
    const text =
      '{{$x := .a}}{{if .c}}{{$x = .b}}{{$y := .d}}{{end}}{{$x.k}}{{with $z := .e}}{{end}}' +
      '{{print ($w := .f)}}{{$w.k}}'
    expect(parse('t', text).analysis.required).toEqual([['a'], ['a', 'k'], ['c'], ['e'], ['f']])
  })
})

describe('the functions a template calls', () => {
  it('are those of the templates it can reach, also when the analysis gives up on paths', () => {
    const unreachable = '{{define "unused"}}{{secret 1}}{{end}}'
    const reachable = '{{define "used"}}{{lookup .x}}{{end}}'
    expect(parse('t', `${unreachable}${reachable}{{template "used" .}}{{print 1}}`).analysis.functions).toEqual([
      'lookup',
      'print',
    ])
    // Past the budget: the same functions, not every function of the set.
    const given = parse('t', `${unreachable}${doubling(30, '{{template "d0" .x}}')}`).analysis
    expect(given.paths).toEqual([[]])
    expect(given.functions).toEqual(['lookup'])
  })
})
