#!/usr/bin/env node
// `npm run bench`: runs the benchmark sections one after the other, prints a
// table per section and writes bench/RESULTS.md.
//
//   npm run bench [-- --budget 300 --runs 5]
//
// Sections run sequentially and each runs its own benchmarks sequentially:
// never two measurements at once, so they do not compete for the CPU. A
// section fails loudly (exit status 1) when its results cannot be trusted,
// e.g. when our engine's output differs from Go's; RESULTS.md is still
// written and says so.
//
// Sections:
//   templates  lib/template against Go's text/template on bench/templates
//              (Go is optional: without it, our figures only).
//   fan-out    the render pipeline (lib/render) rendering a template that
//              calls N independent REST tools of latency L, against L
//              (bench/fanout.ts; needs nothing but Node).
//
// To add a section, append an object { title, run } to SECTIONS: run(ctx)
// resolves to { lines, markdown, failed }, where lines are printed on the
// console and markdown goes into RESULTS.md under ## title.
import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import * as esbuild from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const benchDir = join(root, 'bench')
const templatesDir = join(benchDir, 'templates')

const { values: args } = parseArgs({
  options: {
    budget: { type: 'string', default: '300' },
    runs: { type: 'string', default: '5' },
  },
})
const BUDGET_MS = positiveInt('budget', args.budget)
const RUNS = positiveInt('runs', args.runs)

// Fan-out: each tool answers after FANOUT_LATENCY_MS; per N, one warm-up and FANOUT_RENDERS timed renders.
const FANOUT_LATENCY_MS = 100
const FANOUT_RENDERS = 7
const FANOUT_NS = [1, 5, 10]
/** The tool calls a render runs at once (MAX_CONCURRENT in lib/tools/session.ts). */
const TOOL_CONCURRENCY = 6

const SECTIONS = [
  { title: 'Template engine', run: templateSection },
  { title: 'Tool fan-out', run: fanoutSection },
]

async function main() {
  const started = performance.now()
  const tmp = mkdtempSync(join(os.tmpdir(), 'bench-'))
  try {
    const ctx = { tmp, go: detectGo() }
    const machine = describeMachine(ctx.go)
    console.log(machine.lines.join('\n'))
    const parts = []
    let failed = false
    for (const section of SECTIONS) {
      console.log(`\n== ${section.title} ==`)
      const result = await section.run(ctx)
      console.log(result.lines.join('\n'))
      parts.push(`## ${section.title}\n\n${result.markdown}`)
      failed ||= result.failed
    }
    const seconds = (performance.now() - started) / 1000
    const results = [
      '# Benchmarks',
      '',
      'Written by `npm run bench` (bench/run.mjs); do not edit by hand, run it again.',
      '',
      machine.markdown,
      '',
      `The whole run took ${seconds.toFixed(1)} s.`,
      '',
      ...parts,
    ].join('\n')
    writeFileSync(join(benchDir, 'RESULTS.md'), results.trimEnd() + '\n')
    console.log(`\nWrote bench/RESULTS.md. Total time: ${seconds.toFixed(1)} s.`)
    if (failed) {
      console.error('\nbench: FAILED (see above)')
      process.exitCode = 1
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------- machine

/** Whether Go is on PATH, and its version. */
function detectGo() {
  const r = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' })
  if (r.error || r.status !== 0) return { available: false }
  return { available: true, version: r.stdout.trim() }
}

function describeMachine(go) {
  const cpus = os.cpus()
  const cpu = `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} core${cpus.length === 1 ? '' : 's'}`
  const goVersion = go.available ? go.version : 'not installed (go is not on PATH)'
  const entries = [
    ['Date', new Date().toISOString().replace(/\.\d+Z$/, 'Z')],
    ['Commit', commit()],
    ['Machine', `${cpu}, ${os.platform()} ${os.release()} ${os.arch()}`],
    ['Node', process.version],
    ['Go', goVersion],
  ]
  return {
    lines: entries.map(([k, v]) => `${`${k}:`.padEnd(9)}${v}`),
    markdown: entries.map(([k, v]) => `- ${k}: ${v}`).join('\n'),
  }
}

function commit() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' })
  if (head.error || head.status !== 0) return 'unknown (not a git checkout)'
  const status = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' })
  const dirty = status.status === 0 && status.stdout.trim() !== ''
  return head.stdout.trim() + (dirty ? ' (with uncommitted changes)' : '')
}

// ---------------------------------------------------------------- section: template engine

async function templateSection(ctx) {
  const names = readdirSync(templatesDir)
    .filter((f) => f.endsWith('.tmpl'))
    .map((f) => f.slice(0, -'.tmpl'.length))
    .sort()
  const flags = ['--dir', templatesDir]
  const plan = `${names.length} templates × (1 warm-up + ${RUNS} runs) × ${BUDGET_MS} ms`

  const engineFile = join(ctx.tmp, 'engine.mjs')
  await esbuild.build({
    entryPoints: [join(benchDir, 'engine.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: engineFile,
    logLevel: 'warning',
  })
  console.log(`our engine: ${plan} ...`)
  const ours = JSON.parse(
    await run(process.execPath, [engineFile, ...flags, '--budget', String(BUDGET_MS), '--runs', String(RUNS)]),
  )

  let go
  if (ctx.go.available) {
    const goBin = join(ctx.tmp, 'bench-go')
    console.log(`Go: building bench/go ...`)
    await run('go', ['build', '-o', goBin, '.'], { cwd: join(benchDir, 'go'), env: goEnv() })
    console.log(`Go ${ctx.go.version}: ${plan} ...`)
    go = JSON.parse(await run(goBin, [...flags, '-budget', `${BUDGET_MS}ms`, '-runs', String(RUNS)]))
  } else {
    console.log('Go is not installed (go is not on PATH): our figures only.')
  }

  const mismatches = []
  const rows = []
  const ratios = []
  for (const name of names) {
    const o = ours.results[name]
    const g = go?.results[name]
    if (!o || (go && !g)) throw new Error(`template ${name}: no result`)
    let ratio = '—'
    if (g) {
      const same = Buffer.from(o.output, 'utf8').equals(Buffer.from(g.output, 'utf8'))
      if (same) {
        ratios.push(o.rendersPerSec / g.rendersPerSec)
        ratio = (o.rendersPerSec / g.rendersPerSec).toFixed(2)
      } else {
        mismatches.push({ name, ours: o.output, go: g.output })
        ratio = 'OUTPUT DIFFERS'
      }
    }
    rows.push([name, rate(o.rendersPerSec), g ? rate(g.rendersPerSec) : 'Go absent', ratio])
  }
  const oursRates = names.map((n) => ours.results[n].rendersPerSec)
  rows.push([
    'geometric mean',
    rate(geomean(oursRates)),
    go ? rate(geomean(names.map((n) => go.results[n].rendersPerSec))) : 'Go absent',
    ratios.length > 0 ? geomean(ratios).toFixed(2) : '—',
  ])
  const table = makeTable(
    ['template', 'ours (renders/s)', 'Go (renders/s)', 'ours/Go'],
    ['left', 'right', 'right', 'right'],
    rows,
  )

  const lines = [table.text]
  const notes = []
  if (!go) notes.push('**Go is not installed** (`go` is not on PATH): only our engine was measured.')
  if (mismatches.length > 0) {
    notes.push(
      `**Output mismatch**: ${mismatches.map((m) => `\`${m.name}\``).join(', ')} rendered differently in our engine ` +
        'than in Go; that is an engine bug. Those rows are left out of the geometric mean of the ratios.',
    )
    for (const m of mismatches) {
      const difference = describeDifference(m)
      lines.push('', ...difference)
      notes.push(['```text', ...difference, '```'].join('\n'))
    }
  } else if (go) {
    lines.push('', `All ${names.length} outputs are byte-for-byte identical to Go's.`)
  }

  const method = [
    'Each template in `bench/templates/` (`NAME.tmpl` with its data `NAME.json`) is parsed once and its data decoded once',
    '(`JSON.parse`; in Go, `encoding/json` into `interface{}`), then rendered to a string over and over: ours with',
    '`await template.execute(data)` (`bench/engine.ts`, bundled by esbuild, run by Node), Go with `Execute` into a fresh',
    '`strings.Builder` (`bench/go/main.go`, built by `go build`). Each implementation first renders every template once;',
    "those outputs are compared byte for byte with Go's. Then, per template: one untimed warm-up run and",
    `${RUNS} timed runs of ${BUDGET_MS} ms each; a run's rate is renders divided by its elapsed time, and the figure is the`,
    'median run. The implementations run one after the other, never at the same time. ours/Go above 1 means our engine',
    'is faster.',
  ].join('\n')
  const markdown = [method, '', ...notes.flatMap((n) => [n, '']), table.markdown, ''].join('\n')
  return { lines, markdown, failed: mismatches.length > 0 }
}

/** Go needs a writable build cache; fall back to a temporary one, as test/template/regenerate.sh does. */
function goEnv() {
  const r = spawnSync('go', ['env', 'GOCACHE'], { encoding: 'utf8' })
  const cache = r.status === 0 ? r.stdout.trim() : ''
  let usable = cache !== '' && cache !== 'off'
  if (usable) {
    try {
      mkdirSync(cache, { recursive: true })
      accessSync(cache, constants.W_OK)
    } catch {
      usable = false
    }
  }
  return usable ? process.env : { ...process.env, GOCACHE: join(os.tmpdir(), 'gocache') }
}

/** Where two outputs first differ, with some context from each. */
function describeDifference({ name, ours, go }) {
  let i = 0
  while (i < ours.length && i < go.length && ours[i] === go[i]) i++
  const before = ours.slice(0, i)
  const line = before.split('\n').length
  const column = i - before.lastIndexOf('\n')
  const excerpt = (s) => JSON.stringify(s.slice(Math.max(0, i - 60), i + 60))
  return [
    `MISMATCH in ${name}: first difference at line ${line}, column ${column} (character ${i}; ours has ${ours.length} characters, Go ${go.length}).`,
    `  ours: ${excerpt(ours)}`,
    `  Go:   ${excerpt(go)}`,
    `  (both excerpts start at character ${Math.max(0, i - 60)})`,
  ]
}

// ---------------------------------------------------------------- section: tool fan-out

async function fanoutSection(ctx) {
  const fanoutFile = join(ctx.tmp, 'fanout.mjs')
  await esbuild.build({
    entryPoints: [join(benchDir, 'fanout.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: fanoutFile,
    logLevel: 'warning',
  })
  console.log(
    `render pipeline: N = ${FANOUT_NS.join(', ')} tools of ${FANOUT_LATENCY_MS} ms × (1 warm-up + ${FANOUT_RENDERS} renders) ...`,
  )
  const report = JSON.parse(
    await run(process.execPath, [
      fanoutFile,
      '--latency',
      String(FANOUT_LATENCY_MS),
      '--renders',
      String(FANOUT_RENDERS),
      '--n',
      FANOUT_NS.join(','),
    ]),
  )

  const rows = []
  const problems = []
  const unexpected = []
  for (const r of report.results) {
    const ideal = Math.ceil(r.n / TOOL_CONCURRENCY)
    const concurrency = Math.min(r.n, TOOL_CONCURRENCY)
    rows.push([
      String(r.n),
      r.medianMs.toFixed(1),
      String(report.latencyMs),
      (r.medianMs / report.latencyMs).toFixed(2),
      String(ideal),
      String(r.maxConcurrency),
    ])
    for (const p of r.problems) problems.push(`N=${r.n}: ${p}`)
    if (r.maxConcurrency !== concurrency) unexpected.push(`N=${r.n}: ${r.maxConcurrency}, not ${concurrency}`)
  }
  const table = makeTable(
    ['N (tools)', 'median (ms)', 'L (ms)', 'median/L', `ideal (⌈N/${TOOL_CONCURRENCY}⌉)`, 'max concurrency'],
    ['right', 'right', 'right', 'right', 'right', 'right'],
    rows,
  )

  const lines = [table.text]
  const notes = []
  if (problems.length > 0) {
    lines.push('', 'WRONG RENDERS:', ...problems.map((p) => `  ${p}`))
    notes.push('**Wrong renders**: these figures cannot be trusted.\n\n' + problems.map((p) => `- ${p}`).join('\n'))
  } else {
    lines.push('', `Every render gave N × map[ok:true] and no warnings.`)
  }
  if (unexpected.length > 0) {
    const text = `the most requests the server had in flight at once was not min(N, ${TOOL_CONCURRENCY}): ${unexpected.join('; ')}.`
    lines.push(`Unexpected concurrency: ${text}`)
    notes.push(`**Unexpected concurrency**: ${text}`)
  }

  const method = [
    `A template calling N independent REST tools, \`{{fan_t1 "a"}}{{fan_t2 "a"}}...{{fan_tN "a"}}\`, is rendered by the`,
    'real pipeline, `renderPrompt` (lib/render), from an `EmbeddedStore` holding the N tools `shenma:tools:fan:tI`',
    '(`GET http://127.0.0.1:PORT/tI`) and the direct prompt `shenma:templates:bench:fanN` (`bench/fanout.ts`, bundled by',
    'esbuild, run by Node). Every tool is answered by one local `node:http` server, which replies `{"ok": true}` after',
    `L = ${report.latencyMs} ms and counts the requests it has in flight. Per N: one untimed warm-up render, then`,
    `${report.renders} timed renders (\`performance.now()\` around \`renderPrompt\`); the figure is the median. Every render`,
    `must give N × \`map[ok:true]\` and no warnings. A render runs at most ${TOOL_CONCURRENCY} tool calls at once and`,
    `queues the rest (a Worker may hold ${TOOL_CONCURRENCY} connections at once; under Node that limit is the service's`,
    `own, lib/tools/session.ts), so ideally N ≤ ${TOOL_CONCURRENCY} takes about L and N = 10 about 2·L: \`ideal\` is`,
    `⌈N/${TOOL_CONCURRENCY}⌉, the median/L of fully concurrent calls with no overhead; \`max concurrency\` is the most`,
    "requests the server had in flight at once during that N's renders, warm-up included.",
  ].join('\n')
  const markdown = [method, '', ...notes.flatMap((n) => [n, '']), table.markdown, ''].join('\n')
  return { lines, markdown, failed: problems.length > 0 }
}

// ---------------------------------------------------------------- helpers

/** Runs a command to completion; resolves to its stdout, rejects on failure. Its stderr goes to ours. */
function run(command, commandArgs, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'inherit'], ...options })
    const chunks = []
    child.stdout.on('data', (c) => chunks.push(c))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (code === 0) resolve(Buffer.concat(chunks).toString('utf8'))
      else reject(new Error(`${command} ${commandArgs.join(' ')} failed (${signal ?? `exit status ${code}`})`))
    })
  })
}

function positiveInt(flag, text) {
  const n = Number(text)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${flag} must be a positive integer, not ${text}`)
  return n
}

function rate(n) {
  return Math.round(n).toLocaleString('en-US')
}

function geomean(xs) {
  return Math.exp(xs.reduce((sum, x) => sum + Math.log(x), 0) / xs.length)
}

/** A table as aligned text for the console and as a Markdown table laid out as Prettier would. */
function makeTable(headers, aligns, rows) {
  const all = [headers, ...rows]
  const widths = headers.map((_, c) => Math.max(3, ...all.map((r) => [...r[c]].length)))
  const pad = (s, c) => (aligns[c] === 'right' ? s.padStart(widths[c]) : s.padEnd(widths[c]))
  const text = [
    headers.map(pad).join('  '),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.map((r) => r.map(pad).join('  ')),
  ].join('\n')
  const mdRow = (r) => `| ${r.map(pad).join(' | ')} |`
  const rule = `| ${widths.map((w, c) => (aligns[c] === 'right' ? '-'.repeat(w - 1) + ':' : '-'.repeat(w))).join(' | ')} |`
  const markdown = [mdRow(headers), rule, ...rows.map(mdRow)].join('\n')
  return { text, markdown }
}

if (!existsSync(templatesDir)) throw new Error(`missing ${templatesDir}`)
await main()
