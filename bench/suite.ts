/**
 * Measures how fast lib/template renders the cases of the differential suite
 * (test/template/cases.json) that Go renders without error (test/template/golden.json),
 * the same way `oracle -bench` (test/template/oracle/bench.go) measures Go's
 * text/template on them. bench/run.mjs bundles this file with esbuild and runs it:
 *
 *   node suite.mjs [--dir test/template] [--budget 10] [--runs 3] [--shard 0/8]
 *
 * Each case is parsed once, as the differential suite parses it, its data
 * taken as JSON.parse gave it, then rendered (template.render: a case whose
 * functions are all synchronous makes no Promise, as Go's Execute) over and
 * over for --budget milliseconds, in rounds over all the cases: one untimed
 * warm-up round, so that the JIT has seen every case before any is timed, then
 * --runs timed rounds; a case's result is its median run's rate. --shard k/n
 * takes the cases whose index in cases.json is k modulo n, so that
 * bench/run.mjs can alternate with Go. It prints, on stdout:
 *
 *   {"node": "v20.x", "results": {"NAME": {"rendersPerSec": 12345.6, "output": "..."}}}
 *
 * A case Go renders and this engine fails to parse or execute is reported as
 * {"error": "..."} in place of its result.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { parse } from '../lib/template/index'
import type { ExecuteOptions, MissingKey, Template } from '../lib/template/index'
import { FUNCS } from '../test/template/funcs'
import { median, positive, run } from './stats'

interface Case {
  name: string
  template: string
  data?: unknown
  options?: { missingkey?: MissingKey }
  templates?: Record<string, string>
}

type Result = { rendersPerSec: number; output: string } | { error: string }

/** Renders between two readings of the clock. */
const CLOCK_EVERY = 16

const read = (dir: string, file: string): unknown => JSON.parse(readFileSync(join(dir, file), 'utf8'))

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string', default: 'test/template' },
      budget: { type: 'string', default: '10' },
      runs: { type: 'string', default: '3' },
      shard: { type: 'string', default: '0/1' },
    },
  })
  const budget = positive('budget', values.budget)
  const runs = positive('runs', values.runs)
  const [k, n] = (values.shard ?? '0/1').split('/').map(Number) as [number, number]
  if (!(n >= 1 && k >= 0 && k < n)) throw new Error(`--shard must be k/n with 0 <= k < n, not ${values.shard}`)
  const dir = values.dir ?? 'test/template'
  const cases = read(dir, 'cases.json') as Case[]
  const golden = read(dir, 'golden.json') as { results: { name: string; error?: string }[] }
  const goFailed = new Set(golden.results.filter((r) => r.error !== undefined).map((r) => r.name))
  const results: Record<string, Result> = {}
  const benched: Bench[] = []
  for (const [i, c] of cases.entries()) {
    if (i % n !== k || goFailed.has(c.name)) continue
    try {
      benched.push(await prepare(c))
    } catch (e) {
      results[c.name] = { error: e instanceof Error ? e.message : String(e) }
    }
  }
  // One warm-up round over every case first: the JIT sees them all before any is timed.
  for (const b of benched) await measure(b, budget)
  for (let r = 0; r < runs; r++) for (const b of benched) b.rates.push(await measure(b, budget))
  for (const b of benched) results[b.name] = { rendersPerSec: median(b.rates), output: b.output }
  process.stdout.write(JSON.stringify({ node: process.version, results }) + '\n')
}

interface Bench {
  name: string
  template: Template
  data: unknown
  options: ExecuteOptions
  output: string
  rates: number[]
}

async function prepare(c: Case): Promise<Bench> {
  const template = parse('tpl', c.template, { functions: Object.keys(FUNCS), templates: c.templates })
  const options: ExecuteOptions = { funcs: FUNCS, missingKey: c.options?.missingkey ?? 'default' }
  const output = await template.execute(c.data, options)
  return { name: c.name, template, data: c.data, options, output, rates: [] }
}

/** Executes until the budget (ms) is spent; returns executions per second. */
async function measure({ template, data, options }: Bench, budget: number): Promise<number> {
  let n = 0
  const start = performance.now()
  const deadline = start + budget
  for (;;) {
    // A case whose functions are all synchronous renders without a Promise, as Go's Execute does.
    const rendering = template.render(data, options)
    if (typeof rendering !== 'string') await rendering
    // The clock is read every CLOCK_EVERY renders, by Go's side too: it costs as much as a small render.
    if (++n % CLOCK_EVERY !== 0) continue
    const now = performance.now()
    if (now >= deadline) return (n * 1000) / (now - start)
  }
}

run(main)
