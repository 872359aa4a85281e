// The analysis's sites: where each static read and each call is written,
// placed as Go places an execution error (line, and the column in UTF-8
// bytes from 0), in the template that holds it, in source order.
import { describe, expect, it } from 'vitest'
import { parsePrompt } from '../../../lib/catalog'
import { ExecError, mergeAnalyses, parse } from '../../../lib/template'
import type { Analysis, CallSite, ReadSite, Site } from '../../../lib/template'

function sitesOf(text: string): readonly Site[] {
  const sites = parse('t', text).analysis.sites
  expect(sites).toBeDefined()
  return sites ?? []
}

const reads = (sites: readonly Site[]) => sites.filter((s): s is ReadSite => s.kind === 'read')
const calls = (sites: readonly Site[]) => sites.filter((s): s is CallSite => s.kind === 'call')
/** Each read as `template:line:column path` (`?` marking a conditional one). */
const readsAt = (sites: readonly Site[]) =>
  reads(sites).map((s) => `${s.template}:${s.line}:${s.column} ${s.conditional ? '?' : ''}${s.path.join('.')}`)
const callsAt = (sites: readonly Site[]) =>
  calls(sites).map((s) => `${s.template}:${s.line}:${s.column} ${s.name}/${s.positional}`)

describe('the sites of a template', () => {
  it('place reads and calls on their lines and columns, in source order', () => {
    const sites = sitesOf('Hello {{.user.name}}\n  {{no_such_tool .a "b" | printf "%s"}}\n{{.c}}')
    expect(sites.map((s) => (s.kind === 'read' ? s.path.join('.') : s.name))).toEqual([
      'user.name',
      'no_such_tool',
      'a',
      'printf',
      'c',
    ])
    expect(readsAt(sites)).toEqual(['t:1:13 user.name', 't:2:17 a', 't:3:2 c'])
    expect(callsAt(sites)).toEqual(['t:2:4 no_such_tool/2', 't:2:26 printf/2'])
  })

  it('place a missing read where execution fails on it', async () => {
    const text = 'line one\n\tsee {{if .ok}}{{.nope.x}}{{end}}'
    const [, site] = reads(sitesOf(text))
    const failure = await parse('t', text)
      .execute({ ok: true }, { missingKey: 'error' })
      .catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(ExecError)
    const { line, column } = failure as ExecError
    expect(site).toMatchObject({ path: ['nope', 'x'], line, column })
  })

  it('count columns in UTF-8 bytes, as Go does', () => {
    // é is 2 bytes, 😀 (a surrogate pair) 4, 中 3.
    expect(readsAt(sitesOf('é😀中{{.a}}\nx{{.b}}'))).toEqual(['t:1:11 a', 't:2:3 b'])
  })

  it('point at what they name, for every site of a long template read out of order', () => {
    const line = (i: number) => `${'ü'.repeat(i % 7)}{{.v${i}}} {{f${i} 1}}{{with .w${i}}}{{.x}}{{end}}`
    const defines = Array.from({ length: 40 }, (_, i) => `{{define "d${i}"}}{{.y${i}}}{{end}}`).join('\n')
    // The main template calls the defines in reverse: their sites come out of text order.
    const main = Array.from({ length: 40 }, (_, i) => `${line(i)}{{template "d${39 - i}" .}}`).join('\n')
    const text = `${defines}\n${main}\n${'x'.repeat(5000)}{{.last}}`
    const t = parse('t', text)
    const sites = t.analysis.sites ?? []
    expect(sites).toHaveLength(40 * 5 + 1)
    for (const site of sites) {
      // Each read here is a field of one name, which Go places at that name.
      const token = site.kind === 'call' ? site.name : `.${site.path[site.path.length - 1]}`
      expect(text.slice(positionOf(text, site)).startsWith(token), JSON.stringify(site)).toBe(true)
    }
  })

  it('give the operands a call is passed, a piped value counted', () => {
    const sites = sitesOf('{{f}} {{f 1 2}} {{.x | f 1}} {{1 | f | g}} {{printf "%v" now}} {{(h 1).k}}')
    expect(calls(sites).map((s) => `${s.name}/${s.positional}`)).toEqual([
      'f/0',
      'f/2',
      'f/2',
      'f/1',
      'g/1',
      'printf/2',
      'now/0',
      'h/1',
    ])
  })

  it('mark reads in branches and in later and/or operands as conditional, and pipelines that always run as not', () => {
    const sites = sitesOf(
      '{{if .a}}{{.b}}{{else if .c}}{{.d}}{{else}}{{.e}}{{end}}{{and .f .g}}{{range .h}}{{$.i}}{{end}}',
    )
    expect(reads(sites).map((s) => `${s.conditional ? '?' : ''}${s.path.join('.')}`)).toEqual([
      'a',
      '?b',
      '?c',
      '?d',
      '?e',
      'f',
      '?g',
      'h',
      '?i',
    ])
  })

  it('follow variables, $ and parentheses to the paths they read', () => {
    const sites = sitesOf(
      '{{$x := .a}}{{$x.b}} {{$.c.d}} {{(.e).f}} {{$x}} {{.}} {{range $k, $v := .g}}{{$v.z}}{{end}}',
    )
    expect(reads(sites).map((s) => s.path.join('.'))).toEqual(['a', 'a.b', 'c.d', 'e', 'e.f', 'g'])
  })

  it('give a with over an index result as the guard of the reads below it', () => {
    const sites = reads(sitesOf('{{with index . "opt"}}{{.x}}{{$.y}}{{end}}{{with .z}}{{.w}}{{end}}'))
    expect(sites.map((s) => [s.path.join('.'), s.guarded])).toEqual([
      ['opt.x', 1],
      ['y', undefined],
      ['z', undefined],
      ['z.w', undefined],
    ])
  })
})

describe('the sites of defined templates', () => {
  it('are placed in the text that defines them and name their template', () => {
    const text = '{{define "greet"}}\n  Hi {{.name}} {{shout .title}}\n{{end}}{{template "greet" .user}}'
    const sites = sitesOf(text)
    expect(readsAt(sites)).toEqual(['t:3:26 user', 'greet:2:7 user.name', 'greet:2:23 user.title'])
    expect(callsAt(sites)).toEqual(['greet:2:17 shout/1'])
  })

  it('are joined onto each call’s argument, and only their calls are known where the argument is dynamic', () => {
    const text =
      '{{define "d"}}{{.x}}{{f}}{{end}}{{template "d" .a}}{{template "d" .b}}{{range .c}}{{template "d" .}}{{end}}'
    const sites = sitesOf(text)
    expect(reads(sites).map((s) => `${s.template} ${s.conditional ? '?' : ''}${s.path.join('.')}`)).toEqual([
      't a',
      'd a.x',
      't b',
      'd b.x',
      't c',
    ])
    expect(calls(sites).map((s) => s.template)).toEqual(['d', 'd', 'd'])
  })

  it('are conditional and guarded as the call is', () => {
    const text =
      '{{define "d"}}{{.x}}{{end}}{{if .p}}{{template "d" .a}}{{end}}{{with index . "o"}}{{template "d" .}}{{end}}'
    expect(reads(sitesOf(text)).map((s) => [s.path.join('.'), s.conditional, s.guarded])).toEqual([
      ['p', false, undefined],
      ['a', true, undefined],
      ['a.x', true, undefined],
      ['o.x', true, 1],
    ])
  })

  it('of a recursive template are listed once', () => {
    const text = '{{define "r"}}{{.x}}{{if .more}}{{template "r" .more}}{{end}}{{end}}{{template "r" .}}'
    expect(reads(sitesOf(text)).map((s) => `${s.template} ${s.path.join('.')}`)).toEqual(['r x', 'r more', 'r more'])
  })
})

describe('the sites of several templates', () => {
  it('are each message’s, merged, named by message', () => {
    const parsed = parsePrompt({
      id: 'e.p',
      origin: 'direct',
      key: 'shenma:templates:e:p',
      record: {
        messages: [
          { role: 'system', content: '{{define "sig"}}{{.me}}{{end}}{{.a}}' },
          { role: 'user', content: '\n{{.b}}{{template "sig" .}}' },
        ],
      },
    })
    expect(readsAt(parsed.analysis.sites ?? [])).toEqual([
      'e.p.messages[0]:1:32 a',
      'e.p.messages[1]:2:2 b',
      'sig:1:18 me',
    ])
  })

  it('are unknown once one analysis gave up, and the other fields are as they were', () => {
    const given: Analysis = { paths: [[]], required: [], functions: [] }
    const known = parse('t', '{{.a}}').analysis
    expect(mergeAnalyses([known, given]).sites).toBeUndefined()
    expect(mergeAnalyses([known, known]).sites).toHaveLength(2)
    expect(mergeAnalyses([known, known])).toMatchObject({ paths: [['a']], required: [['a']], functions: [] })
  })

  it('are unknown when the analysis gives up on a set past its budget', () => {
    let text = ''
    for (let i = 0; i < 22; i++)
      text += `{{define "d${i}"}}{{.v}}{{template "d${i + 1}" .a}}{{template "d${i + 1}" .b}}{{end}}`
    const a = parse('t', `${text}{{define "d22"}}{{.leaf}}{{end}}{{template "d0" .x}}`).analysis
    expect(a.paths).toEqual([[]])
    expect(a.sites).toBeUndefined()
  })
})

/** The UTF-16 position of a site in `text`, found from its line and byte column. */
function positionOf(text: string, site: Site): number {
  let pos = 0
  for (let line = 1; line < site.line; line++) pos = text.indexOf('\n', pos) + 1
  for (let bytes = 0; bytes < site.column; pos++) {
    const c = text.codePointAt(pos) as number
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4
    if (c >= 0x10000) pos++
  }
  return pos
}
