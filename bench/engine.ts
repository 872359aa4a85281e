/**
 * Measures how fast lib/template renders the prompt templates in
 * bench/templates, the same way bench/go/main.go measures Go's text/template.
 * bench/run.mjs bundles this file with esbuild and runs it:
 *
 *   node engine.mjs [--dir bench/templates] [--budget 300] [--runs 5] [--only name,name]
 *
 * For each NAME.tmpl with its NAME.json, it parses the template once (as
 * parse(NAME, text)) and decodes the data once (JSON.parse), then executes it
 * over and over: one untimed warm-up run, then --runs timed runs of --budget
 * milliseconds each, with render (synchronous, as these templates call no
 * function). A run's rate is renders divided by the elapsed time; the
 * result is the median run. It prints, on stdout:
 *
 *   {"node": "v20.x", "results": {"NAME": {"rendersPerSec": 12345.6, "output": "..."}}}
 *
 * A template that fails to parse or execute is reported on stderr with a
 * non-zero exit status.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from '../lib/template/index'
import { benchFlags, median, run, templateNames } from './stats'
import type { Template } from '../lib/template/index'

interface Result {
  rendersPerSec: number
  output: string
}

interface Report {
  node: string
  results: Record<string, Result>
}

async function main(): Promise<void> {
  const { dir, budget, runs, only } = benchFlags()
  const report: Report = { node: process.version, results: {} }
  for (const name of templateNames(dir, only, '.tmpl')) {
    try {
      report.results[name] = await benchOne(dir, name, budget, runs)
    } catch (e) {
      throw new Error(`${name}: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  process.stdout.write(JSON.stringify(report) + '\n')
}

async function benchOne(dir: string, name: string, budget: number, runs: number): Promise<Result> {
  const text = readFileSync(join(dir, `${name}.tmpl`), 'utf8')
  const data: unknown = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'))
  const template = parse(name, text)
  const output = await template.execute(data)
  await measure(template, data, budget) // warm-up: lets the JIT compile the hot paths
  const rates: number[] = []
  for (let i = 0; i < runs; i++) rates.push(await measure(template, data, budget))
  return { rendersPerSec: median(rates), output }
}

/** Executes until the budget (ms) is spent; returns executions per second. */
async function measure(template: Template, data: unknown, budget: number): Promise<number> {
  let n = 0
  const start = performance.now()
  const deadline = start + budget
  for (;;) {
    // These templates call no function: they render without a Promise, as Go's Execute does.
    const rendering = template.render(data)
    if (typeof rendering !== 'string') await rendering
    n++
    const now = performance.now()
    if (now >= deadline) return (n * 1000) / (now - start)
  }
}

run(main)
