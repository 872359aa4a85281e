// The engine's limits inside workerd, whose stack is smaller than Node's:
// the nesting limit's worth of every kind of nesting parses and renders, one
// level more is a ParseError, and recursion and deep data end in LimitErrors,
// never in a RangeError or a dead isolate. The engine is bundled with esbuild
// and run by Miniflare, as the Worker runs it.
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_NESTING } from '../../../lib/template'

/** The Worker: renders the template of each case it is sent, and answers what happened. */
const WORKER = `
import { parse } from '../../../lib/template'

async function render({ text, data, depth, options }) {
  // Data nested \`depth\` levels deep is made here: JSON would not carry it.
  for (let i = 0; i < (depth ?? 0); i++) data = [data]
  try {
    return { output: await parse('t', text).execute(data, options) }
  } catch (e) {
    return { error: e?.name, limit: e?.limit, message: String(e?.message).slice(0, 300) }
  }
}

export default {
  async fetch(request) {
    const cases = await request.json()
    const results = []
    for (const c of cases) results.push(await render(c))
    return Response.json(results)
  },
}
`

const nestings: Record<string, (n: number) => string> = {
  if: (n) => '{{if true}}'.repeat(n) + 'x' + '{{end}}'.repeat(n),
  range: (n) => '{{range 1}}'.repeat(n) + 'x' + '{{end}}'.repeat(n),
  with: (n) => '{{with 1}}'.repeat(n) + 'x' + '{{end}}'.repeat(n),
  block: (n) => Array.from({ length: n }, (_, i) => `{{block "b${i}" .}}`).join('') + 'x' + '{{end}}'.repeat(n),
  parentheses: (n) => `{{print ${'('.repeat(n)}"x"${')'.repeat(n)}}}`,
}

let mf: Miniflare

beforeAll(async () => {
  const bundle = await build({
    stdin: { contents: WORKER, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
  })
  mf = new Miniflare({
    modules: true,
    script: bundle.outputFiles[0]?.text ?? '',
    compatibilityDate: '2026-04-26',
    compatibilityFlags: ['nodejs_compat'],
  })
}, 60_000)

afterAll(async () => {
  await mf?.dispose()
})

async function renderInWorkerd(
  cases: { text: string; data?: unknown; depth?: number; options?: Record<string, unknown> }[],
): Promise<Outcome[]> {
  const response = await mf.dispatchFetch('http://engine/', { method: 'POST', body: JSON.stringify(cases) })
  return (await response.json()) as Outcome[]
}

interface Outcome {
  output?: string
  error?: string
  limit?: string
  message?: string
}

describe('inside workerd', () => {
  it('renders the nesting limit’s worth of every kind of nesting, and refuses one level more', async () => {
    const kinds = Object.keys(nestings)
    const results = await renderInWorkerd(
      kinds.flatMap((kind) => [
        { text: nestings[kind]?.(MAX_NESTING) ?? '' },
        { text: nestings[kind]?.(MAX_NESTING + 1) ?? '' },
      ]),
    )
    kinds.forEach((kind, i) => {
      expect({ kind, ...results[2 * i] }).toEqual({ kind, output: expect.stringMatching(/^x+$/) })
      expect({ kind, ...results[2 * i + 1] }).toMatchObject({
        kind,
        error: 'ParseError',
        message: expect.stringContaining('max nesting depth exceeded'),
      })
    })
  })

  it('renders a chain of ten thousand {{else if}} or {{else with}}, which is no nesting', async () => {
    const chains = ['if', 'with'].map((kind) => ({
      text: `{{${kind} false}}${`{{else ${kind} false}}`.repeat(10_000)}{{else}}x{{end}}`,
    }))
    expect(await renderInWorkerd(chains)).toEqual([{ output: 'x' }, { output: 'x' }])
  })

  it('ends endless recursion and printing of deep data with LimitErrors', async () => {
    const [recursion, data, unbounded] = await renderInWorkerd([
      { text: '{{define "loop"}}{{template "loop" .}}{{end}}{{template "loop" .}}' },
      { text: '{{.}}', data: 'leaf', depth: 5000 },
      { text: '{{define "loop"}}{{template "loop" .}}{{end}}{{template "loop" .}}', options: { maxDepth: 1e9 } },
    ])
    expect(recursion).toMatchObject({ error: 'LimitError', limit: 'maxDepth' })
    expect(data).toMatchObject({ error: 'LimitError', limit: 'maxDataDepth' })
    expect(unbounded).toMatchObject({ error: 'LimitError', limit: 'maxDepth' })
    // The isolate is still there.
    expect(await renderInWorkerd([{ text: 'ok' }])).toEqual([{ output: 'ok' }])
  })
})
