/**
 * The JavaScript baseline: how fast Handlebars renders the Handlebars
 * equivalents of the prompt templates in bench/templates, measured exactly as
 * bench/engine.ts measures lib/template. bench/run.mjs bundles this file with
 * esbuild and runs it:
 *
 *   node handlebars.mjs [--dir bench/templates] [--budget 300] [--runs 5] [--only name,name]
 *
 * For each NAME.hbs (with the data NAME.json that NAME.tmpl renders), it
 * compiles the template once, with Handlebars.compile and the options below,
 * and decodes the data once (JSON.parse); the first render, which is when
 * Handlebars really compiles, is untimed and gives the output. Then: one
 * untimed warm-up run and --runs timed runs of --budget milliseconds each; a
 * run's rate is renders divided by its elapsed time, and the result is the
 * median run. It prints, on stdout:
 *
 *   {"handlebars": "4.7.10", "results": {"NAME": {"rendersPerSec": 12345.6, "output": "..."}}}
 *
 * Prompts are not HTML, so templates compile with noEscape; ignoreStandalone
 * keeps a line holding only a block tag, so that `~` trims whitespace as
 * Go's `-` does and nothing else does; the helpers are knownHelpers, which
 * lets Handlebars call them directly. Handlebars has no comparisons, no
 * boolean operators and no formatting, so the templates call the helpers
 * below: `printf`, `print`, `println`, `html`, `js`, `urlquery`, `len`,
 * `index`, `slice` and the comparisons are lib/template's own
 * implementations of Go's functions (bench/templates/*.tmpl print with Go's
 * fmt, so nothing else prints the same); `and`, `or` and `not` use Go's
 * truth (an empty map is false); `int` makes a Handlebars number (such as
 * @index) a Go int, for printf's %d. Everything else is native Handlebars:
 * each, with, if, unless, lookup, inline partials, partial blocks, block
 * parameters, @index, @key, @root and `~`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Handlebars from 'handlebars'
import type { HelperDelegate, HelperOptions } from 'handlebars'
import { BUILTINS } from '../lib/template/exec/builtins'
import { UNLIMITED } from '../lib/template/fmt'
import { utf8Bytes } from '../lib/template/fmt/utf8'
import type { Work } from '../lib/template/exec/run'
import { isTrue } from '../lib/template/value'
import type { Value } from '../lib/template/index'
import { benchFlags, median, run, templateNames } from './stats'

interface Result {
  rendersPerSec: number
  output: string
}

interface Report {
  handlebars: string
  results: Record<string, Result>
}

type Render = (data: unknown) => string

/** A helper's arguments without the options object Handlebars appends. */
function operands(args: unknown[]): Value[] {
  return args.slice(0, -1) as Value[]
}

/** What lib/template's builtins need of an execution, here without a budget or limits: Handlebars has neither. */
const UNBOUNDED: Work = {
  charge: () => undefined,
  limits: UNLIMITED,
  bytes: utf8Bytes,
  truth: isTrue,
  size: (m) => Object.keys(m).length,
}

/** Go's function `name` from lib/template, as a Handlebars helper. */
function goFunction(name: keyof typeof BUILTINS): HelperDelegate {
  const builtin = BUILTINS[name]
  if (!builtin) throw new Error(`no builtin ${name}`)
  return (...args: unknown[]) => builtin.call(operands(args), UNBOUNDED)
}

const HELPERS: Record<string, HelperDelegate> = {
  printf: goFunction('printf'),
  print: goFunction('print'),
  println: goFunction('println'),
  html: goFunction('html'),
  js: goFunction('js'),
  urlquery: goFunction('urlquery'),
  len: goFunction('len'),
  index: goFunction('index'),
  slice: goFunction('slice'),
  eq: goFunction('eq'),
  ne: goFunction('ne'),
  lt: goFunction('lt'),
  le: goFunction('le'),
  gt: goFunction('gt'),
  ge: goFunction('ge'),
  // Go's and/or give back an operand: the first false (and) or true (or) one, else the last.
  and: (...args: unknown[]) => {
    const xs = operands(args)
    return xs.find((x) => !isTrue(x)) ?? xs[xs.length - 1]
  },
  or: (...args: unknown[]) => {
    const xs = operands(args)
    return xs.find((x) => isTrue(x)) ?? xs[xs.length - 1]
  },
  not: (x: Value, _options: HelperOptions) => !isTrue(x),
  int: (x: number, _options: HelperOptions) => BigInt(x),
}

const COMPILE_OPTIONS = {
  noEscape: true,
  ignoreStandalone: true,
  knownHelpers: Object.fromEntries(Object.keys(HELPERS).map((h) => [h, true])),
}

async function main(): Promise<void> {
  const { dir, budget, runs, only } = benchFlags()
  const handlebars = Handlebars.create()
  handlebars.registerHelper(HELPERS)
  const report: Report = { handlebars: Handlebars.VERSION, results: {} }
  for (const name of templateNames(dir, only, '.hbs')) {
    try {
      report.results[name] = benchOne(handlebars, dir, name, budget, runs)
    } catch (e) {
      throw new Error(`${name}: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  process.stdout.write(JSON.stringify(report) + '\n')
}

function benchOne(handlebars: typeof Handlebars, dir: string, name: string, budget: number, runs: number): Result {
  const text = readFileSync(join(dir, `${name}.hbs`), 'utf8')
  const data: unknown = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'))
  const render: Render = handlebars.compile(text, COMPILE_OPTIONS)
  const output = render(data)
  measure(render, data, budget) // warm-up: lets the JIT compile the hot paths
  const rates: number[] = []
  for (let i = 0; i < runs; i++) rates.push(measure(render, data, budget))
  return { rendersPerSec: median(rates), output }
}

/** Renders until the budget (ms) is spent; returns renders per second. */
function measure(render: Render, data: unknown, budget: number): number {
  let n = 0
  const start = performance.now()
  const deadline = start + budget
  for (;;) {
    render(data)
    n++
    const now = performance.now()
    if (now >= deadline) return (n * 1000) / (now - start)
  }
}

run(main)
