// The differential suite: every case of test/template/cases.json, rendered by
// our engine, against what real Go (test/template/golden.json, written by
// test/template/oracle) rendered. Go is not needed to run it.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parse } from '../../../lib/template'
import type { MissingKey } from '../../../lib/template'
import { FUNCS } from '../../template/funcs'

interface Case {
  name: string
  template: string
  data: unknown
  options?: { missingkey?: MissingKey }
  templates?: Record<string, string>
  note?: string
}

interface GoResult {
  name: string
  output: string
  error?: string
  phase?: 'parse' | 'exec'
}

const read = (file: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../template/${file}`, import.meta.url), 'utf8'))
const cases = read('cases.json') as Case[]
const golden = read('golden.json') as { go: string; results: GoResult[] }

/** Why a case may differ from Go 1.19; lib/template/README.md explains each. */
const REASONS = {
  numbers: 'an int constant and a JSON number (float64) compare by value, and a whole float64 indexes',
  newerGo: 'a feature of a later Go than the oracle: range over an int (1.22), else with (1.23)',
  bytes: 'a string constant that is not valid UTF-8 (\\xff) cannot be held by a JS string: U+FFFD stands in',
  typedParams: 'Go converts constants to a Go function parameter type; JS functions take values as they are',
  limits: 'a limit an edge isolate needs: at most 200 levels of control structures and parentheses',
} as const

/**
 * Cases where we differ from Go on purpose. Each entry is checked: the case
 * must really differ, so the list cannot rot.
 */
const DELIBERATE: Readonly<Record<string, keyof typeof REASONS>> = {
  'builtin/index array with JSON number': 'numbers',
  'builtin/len compared with JSON number': 'numbers',
  'builtin/slice with JSON number index': 'numbers',
  'cmp/eq (index `x` 0) 120.0': 'numbers',
  'cmp/eq .Ptr 1': 'numbers',
  'cmp/eq .Three 3': 'numbers',
  'cmp/eq .Three 3 3.0': 'numbers',
  'cmp/eq 0x10 .Ufour': 'numbers',
  'cmp/eq 1e2 100': 'numbers',
  'cmp/eq 2 2.0': 'numbers',
  'cmp/eq 3 .Three': 'numbers',
  'cmp/lt -1.5 -1': 'numbers',
  'cmp/lt .Three 4': 'numbers',
  'cmp/lt 2 .Three': 'numbers',
  'cmp/ne .Three 3': 'numbers',
  'exec/bug18a': 'numbers',
  'exec/slice with float field index': 'numbers',
  'execerr/comparison incompatible': 'numbers',
  'if/if on result of comparison error': 'numbers',
  'js-pitfall/eq int constant with JSON number errors': 'numbers',
  'js-pitfall/index of a JSON array with a JSON number: error': 'numbers',
  'js-pitfall/len result compared with JSON number: error': 'numbers',
  'js-pitfall/lt mixes int constant and JSON float: error': 'numbers',
  'range/range element compared with constant': 'numbers',
  'tmpl/recursion compare float with int constant': 'numbers',
  'range/over int constant': 'newerGo',
  'range/over int constant with var': 'newerGo',
  'range/over int from len': 'newerGo',
  'with/with else with': 'newerGo',
  'with/with else with falls through': 'newerGo',
  'const/string escape \\xff is a byte': 'bytes',
  'const/string escapes build UTF-8 from bytes': 'bytes',
  'exec/parens in pipeline': 'typedParams',
  'func/count JSON number': 'typedParams',
  'js-pitfall/count with a JSON number: error': 'typedParams',
  'exec/parens in pipeline %v': 'typedParams',
  'fidelity/a byte passed to a function': 'typedParams',
  'limits/if nested 201 deep': 'limits',
  'limits/parentheses nested 201 deep': 'limits',
}

/** Why a message may differ from Go's where both fail; lib/template/README.md explains each. */
const MESSAGE_REASONS = {
  shortQuotes: 'a message quotes at most 64 characters of the template text (a literal, a name), never a megabyte',
  shortNodes: 'an execution message quotes at most 256 characters of the node it failed at, then ...',
} as const

/**
 * Cases where both fail, and our message differs from Go's on purpose. Each
 * entry is checked: both must fail, with different messages.
 */
const DELIBERATE_MESSAGES: Readonly<Record<string, keyof typeof MESSAGE_REASONS>> = {
  'literal/bad number of 1000 digits': 'shortQuotes',
  'literal/float of 1000 digits out of range': 'shortQuotes',
  'literal/function of 1000 characters not defined': 'shortQuotes',
  'literal/integer of 1000 digits': 'shortQuotes',
  'literal/integer of 300 digits overflows': 'shortQuotes',
  'literal/malformed character constant of 1000 characters': 'shortQuotes',
  'literal/octal of 1000 digits': 'shortQuotes',
  'literal/undefined variable of 1000 characters': 'shortQuotes',
  'literal/execution error at a node of 300 characters': 'shortNodes',
  'literal/argument to a string of 1000 characters': 'shortNodes',
}

interface Outcome {
  output?: string
  error?: string
  phase?: 'parse' | 'exec'
}

async function render(c: Case): Promise<Outcome> {
  let template
  try {
    template = parse('tpl', c.template, { functions: Object.keys(FUNCS), templates: c.templates })
  } catch (e) {
    return { error: (e as Error).message, phase: 'parse' }
  }
  try {
    return { output: await template.execute(c.data, { funcs: FUNCS, missingKey: c.options?.missingkey ?? 'default' }) }
  } catch (e) {
    return { error: (e as Error).message, phase: 'exec' }
  }
}

describe(`the differential suite against ${golden.go}`, () => {
  const goByName = new Map(golden.results.map((r) => [r.name, r]))

  it('has Go results for exactly the cases', () => {
    expect(golden.results.map((r) => r.name)).toEqual(cases.map((c) => c.name))
  })

  it('renders what Go renders, and fails where Go fails', async () => {
    const differences: string[] = []
    const deliberate = new Map<string, number>()
    let sameMessage = 0
    let failures = 0
    for (const c of cases) {
      const go = goByName.get(c.name) as GoResult
      const ours = await render(c)
      const listed = Object.hasOwn(DELIBERATE, c.name)
      if (listed) deliberate.set(DELIBERATE[c.name] as string, (deliberate.get(DELIBERATE[c.name] as string) ?? 0) + 1)
      const agree = go.error === undefined ? ours.output === go.output : ours.error !== undefined
      if (go.error !== undefined && ours.error !== undefined) {
        failures++
        if (ours.error === go.error) sameMessage++
      }
      const messageListed = Object.hasOwn(DELIBERATE_MESSAGES, c.name)
      if (messageListed && (go.error === undefined || ours.error === undefined || ours.error === go.error)) {
        differences.push(`${c.name} (listed as a deliberate difference of message, but the messages do not differ)`)
      }
      if (agree === listed) {
        differences.push(
          `${c.name}${listed ? ' (listed as deliberate, but agrees)' : ''}${c.note ? ` [${c.note}]` : ''}\n` +
            `  template: ${JSON.stringify(c.template)}\n` +
            `  go:   ${go.error === undefined ? JSON.stringify(go.output) : `error (${go.phase}) ${go.error}`}\n` +
            `  ours: ${ours.error === undefined ? JSON.stringify(ours.output) : `error (${ours.phase}) ${ours.error}`}`,
        )
      }
    }
    console.log(
      `differential: ${cases.length} cases, ${differences.length} unexpected differences; deliberate: ` +
        `${[...deliberate].map(([reason, n]) => `${n} ${reason}`).join(', ')}; ` +
        `${sameMessage} of ${failures} shared failures with Go's exact message ` +
        `(${Object.keys(DELIBERATE_MESSAGES).length} deliberately not)`,
    )
    expect(differences, differences.join('\n')).toEqual([])
  })
})
