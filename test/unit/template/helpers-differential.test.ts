// The helpers' differential suite: every case of test/template/sprig/cases.json,
// rendered by our engine with the helpers on, against what Go's text/template
// with the real Sprig rendered (test/template/sprig/golden.json, written by
// test/template/sprig/oracle). Go is not needed to run it.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { HELPER_NAMES, parse } from '../../../lib/template'
import type { MissingKey } from '../../../lib/template'

interface Outcome {
  output?: string
  error?: string
}

interface Case {
  name: string
  template: string
  data: unknown
  options?: { missingkey?: MissingKey }
  note?: string
  /** What we render instead of Go, on purpose; the note's tag says why. */
  ours?: Outcome
}

interface GoResult extends Outcome {
  name: string
  output: string
  phase?: 'parse' | 'exec'
}

const read = (file: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../template/sprig/${file}`, import.meta.url), 'utf8'))
const cases = read('cases.json') as Case[]
const golden = read('golden.json') as { go: string; sprig: string; helpers: string[]; results: GoResult[] }

/** Why a case may differ from Go with Sprig; lib/template/README.md ("Helper functions") explains each. */
const REASONS = {
  codepoints: 'trunc counts runes, where Sprig counts bytes and can cut a rune in two',
  numbers: 'an int parameter takes a whole float64, as every JSON number is one',
  unicode: "case mapping follows the JS engine's Unicode tables, newer than Go 1.19's (Unicode 13)",
} as const

function render(c: Case): Outcome {
  try {
    const template = parse('tpl', c.template, { functions: [], helpers: true })
    return { output: template.render(c.data, { missingKey: c.options?.missingkey ?? 'default' }) as string }
  } catch (e) {
    return { error: (e as Error).message }
  }
}

function show(o: Outcome): string {
  return o.error === undefined ? JSON.stringify(o.output) : `error ${o.error}`
}

describe(`the helpers against ${golden.go} with Sprig ${golden.sprig}`, () => {
  it('has Go results for exactly the cases, and the helpers Go had', () => {
    expect(golden.results.map((r) => r.name)).toEqual(cases.map((c) => c.name))
    expect(golden.helpers).toEqual(HELPER_NAMES)
  })

  it('renders what Go renders, fails where and as Go fails, and differs only where a case says so', () => {
    const differences: string[] = []
    const deliberate: Record<string, number> = {}
    for (const [i, c] of cases.entries()) {
      const go = golden.results[i] as GoResult
      const ours = render(c)
      const tag = /^(\w+):/.exec(c.note ?? '')?.[1]
      const goSays: Outcome = go.error === undefined ? { output: go.output } : { error: go.error }
      if (c.ours) {
        if (tag === undefined || !Object.hasOwn(REASONS, tag))
          differences.push(`${c.name}: 'ours' without a reason tag`)
        deliberate[tag as string] = (deliberate[tag as string] ?? 0) + 1
        if (show(goSays) === show(c.ours)) differences.push(`${c.name}: listed as deliberate, but Go agrees`)
      }
      const expected = c.ours ?? goSays
      if (show(ours) !== show(expected)) {
        differences.push(
          `${c.name}\n  template: ${JSON.stringify(c.template)}\n  want: ${show(expected)}\n  ours: ${show(ours)}`,
        )
      }
    }
    console.log(
      `helpers differential: ${cases.length} cases, ${differences.length} unexpected differences; deliberate: ` +
        Object.entries(deliberate)
          .map(([reason, n]) => `${n} ${reason}`)
          .join(', '),
    )
    expect(differences, differences.join('\n')).toEqual([])
  })
})
