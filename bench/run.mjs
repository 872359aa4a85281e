#!/usr/bin/env node
// `npm run bench`: runs the benchmark sections one after the other, prints a
// table per section and then one summary table of every figure beside its
// baseline, and writes them all to bench/RESULTS.md.
//
//   npm run bench [-- --budget 300 --runs 5 --only templates,endpoints,fan-out,hostile,startup,size]
//
// --budget and --runs are the template engine's (ms per run, timed runs).
// --only runs those sections and prints them, but leaves RESULTS.md alone; an opt-in section run alone
// (--only soak) writes its own bench/RESULTS-soak.md.
// --profile-dir DIR keeps the endpoints section's CPU profiles there (.cpuprofile, for Chrome DevTools).
// --soak-minutes 2 runs the soak section (only run with --only soak) for 2 minutes instead of 10, Redis gone
// for a tenth of it; --soak-keys 100000 with that many filler keys instead of 1,000,000 (both for trying it out).
// --keyspace-counts 0,100000 measures the keyspace section at those counts of filler keys only (default 0,100000,1000000).
//
// Sections run sequentially and each runs its own benchmarks sequentially:
// never two measurements at once, so they do not compete for the CPU. A
// section fails loudly (exit status 1) when its results cannot be trusted,
// e.g. when our engine's output differs from Go's, or when the Worker answers
// anything but 200 under load; RESULTS.md is still written and says so, and a
// section that cannot run at all says why there while the others still run.
//
// Sections:
//   templates  lib/template against Go's text/template (Go is optional:
//              without it, our figures only) and against Handlebars, the
//              JavaScript baseline, on bench/templates (bench/engine.ts,
//              bench/go, bench/handlebars.ts); and against Go on the
//              differential suite's cases (bench/suite.ts, test/template/oracle).
//   endpoints  the Worker under Miniflare and under `wrangler dev` on a real
//              Redis behind the Upstash-protocol bridge: a render against
//              GET /health, the platform's floor, loaded with autocannon, and
//              a CPU profile of each under Miniflare (bench/endpoints.ts,
//              bench/miniflare.ts; needs redis-server on PATH).
//   fan-out    the render pipeline (lib/render) rendering a template that
//              calls N independent REST tools of latency L, against L
//              (bench/fanout.ts; needs nothing but Node).
//   startup    workerd's CPU from a fresh start to the first answer, the
//              Worker against a Worker of a few lines, in a fresh Miniflare
//              each time (bench/startup.ts): at most 100 ms over it, or the
//              section fails (CI runs it: `npm run startup`).
//   keyspace   a fresh Worker's first render (Miniflare, fresh each time) of a
//              stored one-variable prompt in a database of 0, 100,000 and
//              1,000,000 filler keys, with no added latency and with 20 ms
//              added to every Redis request: Redis requests, commands by name,
//              time; after the scheduled handler made the record index ready,
//              when the Worker has one (bench/keyspace.ts, bench/catalogue.ts).
//              At the largest count at most 3 requests and at most 1.5x the
//              time at 0 keys, or the section fails (issue 29).
//   soak       only with --only soak (it takes over 10 minutes): the Worker
//              under 80 % of its measured capacity of renders for
//              --soak-minutes (10) with 1,000,000 filler keys, Redis gone for
//              60 s in the middle (bench/soak.ts). Every answer 200 (stale
//              while Redis is gone), no errors, workerd's memory flat, or the
//              section fails (issue 29).
//   size       the gzip size of the bundle `wrangler deploy --dry-run
//              --minify` writes, against its 400 KiB tripwire, and what it is
//              made of by package (scripts/bundle-size.mjs).
//
// To add a section, append an object { key, title, run } to SECTIONS: run(ctx)
// resolves to { lines, markdown, failed, summary }, where lines are printed on
// the console, markdown goes into RESULTS.md under ## title, and summary is
// the section's rows of the summary table (see summaryRow).
import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import * as esbuild from 'esbuild'
import { GZIP_BUDGET_BYTES, buildWorker, composition } from '../scripts/bundle-size.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const benchDir = join(root, 'bench')
const templatesDir = join(benchDir, 'templates')

const { values: args } = parseArgs({
  options: {
    budget: { type: 'string', default: '300' },
    runs: { type: 'string', default: '5' },
    only: { type: 'string', default: '' },
    'profile-dir': { type: 'string' },
    'keyspace-counts': { type: 'string', default: '0,100000,1000000' },
    'soak-minutes': { type: 'string', default: '10' },
    'soak-keys': { type: 'string', default: '1000000' },
  },
})
const BUDGET_MS = positiveInt('budget', args.budget)
const RUNS = positiveInt('runs', args.runs)

// Endpoints: per route, ENDPOINT_RUNS runs of ENDPOINT_DURATION_S seconds at ENDPOINT_CONNECTIONS connections.
const ENDPOINT_CONNECTIONS = 16
const ENDPOINT_DURATION_S = 10
const ENDPOINT_RUNS = 5
const ENDPOINT_WARMUP_S = 3
/** Seconds of load per route under the profiler (Miniflare only). */
const ENDPOINT_PROFILE_S = 5

// Fan-out: each tool answers after FANOUT_LATENCY_MS; per N, one warm-up and FANOUT_RENDERS timed renders.
const FANOUT_LATENCY_MS = 100
const FANOUT_RENDERS = 7
const FANOUT_NS = [1, 5, 10]
/** The tool calls a render runs at once (MAX_CONCURRENT in lib/tools/session.ts). */
const TOOL_CONCURRENCY = 6

// The differential suite as a benchmark: each case SUITE_RUNS runs of SUITE_BUDGET_MS, the cases in SUITE_SHARDS.
const SUITE_BUDGET_MS = 10
const SUITE_RUNS = 3
const SUITE_SHARDS = 4

const SECTIONS = [
  { key: 'templates', title: 'Template engine', run: templateSection },
  { key: 'endpoints', title: 'Endpoints', run: endpointSection },
  { key: 'fan-out', title: 'Tool fan-out', run: fanoutSection },
  { key: 'hostile', title: 'Hostile requests', run: hostileSection },
  { key: 'startup', title: 'Startup', run: startupSection },
  { key: 'keyspace', title: 'Keyspace', run: keyspaceSection },
  // Opt-in: only with --only soak.
  { key: 'soak', title: 'Soak', run: soakSection, optIn: true },
  { key: 'size', title: 'Size', run: sizeSection },
]
const ONLY = args.only === '' ? undefined : args.only.split(',')
for (const key of ONLY ?? []) {
  if (!SECTIONS.some((s) => s.key === key)) {
    throw new Error(`--only: no section ${key} (sections: ${SECTIONS.map((s) => s.key).join(', ')})`)
  }
}

async function main() {
  const started = performance.now()
  const tmp = mkdtempSync(join(os.tmpdir(), 'bench-'))
  try {
    const ctx = { tmp, go: detectGo() }
    const machine = describeMachine(ctx.go)
    console.log(machine.lines.join('\n'))
    const parts = []
    const summary = []
    let failed = false
    for (const section of SECTIONS.filter((s) => (ONLY ? ONLY.includes(s.key) : !s.optIn))) {
      console.log(`\n== ${section.title} ==`)
      let result
      try {
        result = await section.run(ctx)
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e)
        result = {
          lines: [`FAILED: ${message}`],
          markdown: `**This section failed**, so it has no figures:\n\n${fence(message)}\n`,
          failed: true,
          summary: [[section.title, 'FAILED', '—', '—', '—']],
        }
      }
      console.log(result.lines.join('\n'))
      parts.push(`## ${section.title}\n\n${result.markdown}`)
      summary.push(...result.summary)
      failed ||= result.failed
    }
    const seconds = (performance.now() - started) / 1000
    const table = makeTable(
      ['figure', 'ours', 'baseline', 'baseline figure', 'ours/baseline'],
      ['left', 'right', 'left', 'right', 'right'],
      summary,
    )
    console.log(`\n== Summary ==\n${table.text}`)
    const results = [
      '# Benchmarks',
      '',
      'Written by `npm run bench` (bench/run.mjs); do not edit by hand, run it again.',
      '',
      machine.markdown,
      '',
      `The whole run took ${seconds.toFixed(1)} s.`,
      '',
      '## Summary',
      '',
      'Every figure beside its baseline, measured in the same run (the size beside a fixed limit); the sections below',
      'say how each was measured, and give the details.',
      '',
      table.markdown,
      '',
      ...parts,
    ].join('\n')
    const optIn = SECTIONS.filter((s) => s.optIn && ONLY?.includes(s.key))
    if (ONLY && optIn.length === ONLY.length) {
      // A section too long for the whole run keeps its own record beside RESULTS.md.
      for (const section of optIn) {
        const file = `RESULTS-${section.key}.md`
        const own = parts.find((part) => part.startsWith(`## ${section.title}\n`)) ?? ''
        const text = [
          `# ${section.title}`,
          '',
          `Written by \`npm run bench -- --only ${section.key}\`; run it again rather than edit.`,
          '',
          machine.markdown,
          '',
          own.replace(/^## .*\n\n/, ''),
        ]
        writeFileSync(join(benchDir, file), text.join('\n').trimEnd() + '\n')
        console.log(`\nWrote bench/${file}. Total time: ${seconds.toFixed(1)} s.`)
      }
    } else if (ONLY) {
      console.log(`\nLeft bench/RESULTS.md alone (--only). Total time: ${seconds.toFixed(1)} s.`)
    } else {
      writeFileSync(join(benchDir, 'RESULTS.md'), results.trimEnd() + '\n')
      console.log(`\nWrote bench/RESULTS.md. Total time: ${seconds.toFixed(1)} s.`)
    }
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
  const names = templateNames('.tmpl')
  const hbsNames = templateNames('.hbs')
  if (hbsNames.length === 0) throw new Error(`no Handlebars template (NAME.hbs) in ${templatesDir}`)
  for (const name of hbsNames) if (!names.includes(name)) throw new Error(`${name}.hbs has no ${name}.tmpl`)
  const flags = ['--dir', templatesDir, '--budget', String(BUDGET_MS), '--runs', String(RUNS)]
  const engineFile = await bundle(ctx, 'engine.ts')
  const handlebarsFile = await bundle(ctx, 'handlebars.ts')
  let goBin
  if (ctx.go.available) {
    goBin = join(ctx.tmp, 'bench-go')
    console.log(`Go: building bench/go ...`)
    await run('go', ['build', '-o', goBin, '.'], { cwd: join(benchDir, 'go'), env: goEnv() })
  } else {
    console.log('Go is not installed (go is not on PATH): our figures and Handlebars only.')
  }

  // Each implementation measures one template in a process of its own, and the implementations take turns template
  // by template (in a rotating order), so that a slow spell of a shared machine hits all three alike.
  const implementations = [
    { key: 'ours', has: () => true, run: (name) => run(process.execPath, [engineFile, ...flags, '--only', name]) },
    {
      key: 'go',
      has: () => goBin !== undefined,
      run: (name) =>
        run(goBin, [...flags.slice(0, 2), '-budget', `${BUDGET_MS}ms`, '-runs', String(RUNS), '-only', name]),
    },
    {
      key: 'hbs',
      has: (name) => hbsNames.includes(name),
      run: (name) => run(process.execPath, [handlebarsFile, ...flags, '--only', name]),
    },
  ]
  console.log(
    `ours, Go and Handlebars in turn: ${names.length} templates × (1 warm-up + ${RUNS} runs) × ${BUDGET_MS} ms each ...`,
  )
  const reports = { ours: undefined, go: undefined, hbs: undefined }
  for (const [i, name] of names.entries()) {
    const turn = [...implementations.slice(i % 3), ...implementations.slice(0, i % 3)]
    for (const impl of turn) {
      if (!impl.has(name)) continue
      const report = JSON.parse(await impl.run(name))
      reports[impl.key] ??= { ...report, results: {} }
      reports[impl.key].results[name] = report.results[name]
    }
  }
  const { ours, go, hbs } = reports

  const mismatches = []
  const hbsOutputs = { identical: [], reordered: [], different: [] }
  const rows = []
  const goRatios = []
  const hbsRatios = []
  for (const name of names) {
    const o = ours.results[name]
    const g = go?.results[name]
    const h = hbs.results[name]
    if (!o || (go && !g) || (hbsNames.includes(name) && !h)) throw new Error(`template ${name}: no result`)
    let goRatio = '—'
    if (g) {
      if (sameBytes(o.output, g.output)) {
        goRatios.push(o.rendersPerSec / g.rendersPerSec)
        goRatio = (o.rendersPerSec / g.rendersPerSec).toFixed(2)
      } else {
        mismatches.push({ name, ours: o.output, theirs: g.output })
        goRatio = 'OUTPUT DIFFERS'
      }
    }
    if (h) {
      hbsRatios.push(o.rendersPerSec / h.rendersPerSec)
      if (sameBytes(o.output, h.output)) hbsOutputs.identical.push(name)
      else if (sortedChars(o.output) === sortedChars(h.output)) hbsOutputs.reordered.push(name)
      else hbsOutputs.different.push({ name, ours: o.output, theirs: h.output })
    }
    rows.push([
      name,
      rate(o.rendersPerSec),
      g ? rate(g.rendersPerSec) : 'Go absent',
      goRatio,
      h ? rate(h.rendersPerSec) : 'no .hbs',
      h ? (o.rendersPerSec / h.rendersPerSec).toFixed(2) : '—',
    ])
  }
  const oursGeomean = geomean(names.map((n) => ours.results[n].rendersPerSec))
  const goGeomean = go ? geomean(names.map((n) => go.results[n].rendersPerSec)) : undefined
  const hbsGeomean = geomean(hbsNames.map((n) => hbs.results[n].rendersPerSec))
  const goRatio = goRatios.length > 0 ? geomean(goRatios) : undefined
  const hbsRatio = geomean(hbsRatios)
  rows.push([
    'geometric mean',
    rate(oursGeomean),
    goGeomean === undefined ? 'Go absent' : rate(goGeomean),
    goRatio === undefined ? '—' : goRatio.toFixed(2),
    rate(hbsGeomean),
    hbsRatio.toFixed(2),
  ])
  const table = makeTable(
    ['template', 'ours (renders/s)', 'Go (renders/s)', 'ours/Go', 'Handlebars (renders/s)', 'ours/Handlebars'],
    ['left', 'right', 'right', 'right', 'right', 'right'],
    rows,
  )

  const lines = [table.text]
  const notes = []
  if (!go) notes.push('**Go is not installed** (`go` is not on PATH): only our engine and Handlebars were measured.')
  if (mismatches.length > 0) {
    notes.push(
      `**Output mismatch**: ${mismatches.map((m) => `\`${m.name}\``).join(', ')} rendered differently in our engine ` +
        'than in Go; that is an engine bug. Those rows are left out of the geometric mean of the ratios.',
    )
    for (const m of mismatches) {
      const difference = describeDifference(m, 'Go')
      lines.push('', ...difference)
      notes.push(fence(difference.join('\n')))
    }
  } else if (go) {
    lines.push('', `All ${names.length} outputs are byte-for-byte identical to Go's.`)
  }

  const list = (xs) => xs.map((x) => `\`${x}\``).join(', ')
  const hbsSummary = [
    `Handlebars ${hbs.handlebars} rendered ${hbsNames.length} of the ${names.length} templates; `,
    `${hbsOutputs.identical.length} outputs are byte-for-byte identical to ours`,
    hbsOutputs.identical.length > 0 ? ` (${list(hbsOutputs.identical)})` : '',
    hbsOutputs.reordered.length > 0
      ? `; ${list(hbsOutputs.reordered)} have the same characters in another order (a map's keys in the data's order)`
      : '',
    hbsOutputs.different.length > 0 ? `; ${list(hbsOutputs.different.map((d) => d.name))} differ` : '',
    '.',
  ].join('')
  const missing = names.filter((n) => !hbsNames.includes(n))
  lines.push(hbsSummary + (missing.length > 0 ? ` No .hbs for: ${missing.join(', ')}.` : ''))
  notes.push(
    `**Handlebars outputs**: ${hbsSummary.replace(/^Handlebars \S+ rendered/, 'Handlebars rendered')}` +
      (missing.length > 0 ? ` It has no equivalent of ${list(missing)}.` : '') +
      (hbsOutputs.different.length > 0 ? ' Where they differ first:' : ''),
  )
  for (const d of hbsOutputs.different) {
    const difference = describeDifference(d, 'Handlebars')
    lines.push(...difference)
    notes.push(fence(difference.join('\n')))
  }

  const method = [
    'Each template in `bench/templates/` (`NAME.tmpl` with its data `NAME.json`) is parsed once and its data decoded once',
    '(`JSON.parse`; in Go, `encoding/json` into `interface{}`), then rendered to a string over and over: ours with',
    '`await template.execute(data)` (`bench/engine.ts`, bundled by esbuild, run by Node), Go with `Execute` into a fresh',
    '`strings.Builder` (`bench/go/main.go`, built by `go build`). Each implementation first renders the template once;',
    "that output is compared byte for byte with Go's. Then: one untimed warm-up run and",
    `${RUNS} timed runs of ${BUDGET_MS} ms each; a run's rate is renders divided by its elapsed time, and the figure is the`,
    'median run. Each implementation measures each template in a process of its own; the implementations take turns',
    'template by template, in a rotating order, never two at the same time, so that a slow spell of the machine falls',
    'on all of them alike. ours/Go above 1 means our engine is faster.',
    '',
    `The JavaScript baseline is Handlebars ${hbs.handlebars}, measured the same way (\`bench/handlebars.ts\`) on \`NAME.hbs\`,`,
    'the Handlebars equivalent of `NAME.tmpl`, with the same `NAME.json`: compiled once with `noEscape` (prompts are not',
    "HTML), `ignoreStandalone` (so `~` trims as Go's `-` does) and its helpers as `knownHelpers`; its first, compiling,",
    'render is untimed. Handlebars has no comparisons, boolean operators or formatting, so the templates call helpers:',
    "Go's `printf`, `print`, `html`, `js`, `urlquery`, `len`, `index`, `slice` and comparisons are lib/template's own",
    "implementations (the `.tmpl` files format with Go's fmt), `and`/`or`/`not` use Go's truth, `int` makes `@index` a",
    "Go int for `%d`; the rest is native (`each`, `with`, `if`, `lookup`, inline partials, `@root`). Handlebars' outputs",
    'print the same prompts, but where Go semantics are not the natural Handlebars ones they are left as Handlebars has',
    "them: it iterates an object's keys in the data's order where Go sorts them, prints a missing value as nothing where",
    'Go prints `<no value>`, and a float like 1000000 as such where Go prints `1e+06`. ours/Handlebars above 1 means our',
    'engine is faster; its geometric mean is over the templates Handlebars rendered.',
  ].join('\n')
  const suite = await suiteFigures(ctx, await bundle(ctx, 'suite.ts'))
  lines.push('', ...suite.lines)
  const markdown = [method, '', ...notes.flatMap((n) => [n, '']), table.markdown, '', suite.markdown, ''].join('\n')
  const summary = [
    summaryRow(
      `Engine: renders/s, geometric mean of ${names.length} templates`,
      rate(oursGeomean),
      "Go's text/template",
      goGeomean === undefined ? 'Go absent' : rate(goGeomean),
      goRatio === undefined ? '—' : goRatio.toFixed(2),
    ),
    summaryRow(
      `Engine: renders/s, geometric mean of the ${hbsNames.length} with a .hbs`,
      rate(geomean(hbsNames.map((n) => ours.results[n].rendersPerSec))),
      `Handlebars ${hbs.handlebars}`,
      rate(hbsGeomean),
      hbsRatio.toFixed(2),
    ),
    suite.summary,
  ]
  return { lines, markdown, failed: mismatches.length > 0, summary }
}

/**
 * The differential suite (test/template/) as a benchmark: every case Go renders without error, ours
 * (bench/suite.ts) against Go (test/template/oracle -bench, which builds each case as it does for golden.json).
 * The cases are split in SUITE_SHARDS, each measured by each implementation in a process of its own, taking
 * turns shard by shard in a rotating order.
 */
async function suiteFigures(ctx, suiteFile) {
  const figure = `Engine: renders/s, geometric mean of the differential suite's cases Go renders`
  const flags = [
    '--dir',
    join(root, 'test', 'template'),
    '--budget',
    String(SUITE_BUDGET_MS),
    '--runs',
    String(SUITE_RUNS),
  ]
  const implementations = [
    { key: 'ours', run: (shard) => run(process.execPath, [suiteFile, ...flags, '--shard', shard]) },
  ]
  if (ctx.go.available) {
    const oracle = join(ctx.tmp, 'oracle')
    console.log('Go: building test/template/oracle ...')
    await run('go', ['build', '-o', oracle, '.'], { cwd: join(root, 'test', 'template', 'oracle'), env: goEnv() })
    const goFlags = [
      '-bench',
      '-cases',
      join(root, 'test', 'template', 'cases.json'),
      '-budget',
      `${SUITE_BUDGET_MS}ms`,
    ]
    implementations.push({
      key: 'go',
      run: (shard) => run(oracle, [...goFlags, '-runs', String(SUITE_RUNS), '-shard', shard]),
    })
  }
  console.log(
    `the differential suite, ours and Go in turn: ${SUITE_SHARDS} shards, each case ` +
      `(1 warm-up + ${SUITE_RUNS} runs) × ${SUITE_BUDGET_MS} ms ...`,
  )
  const results = { ours: {}, go: {} }
  for (let k = 0; k < SUITE_SHARDS; k++) {
    const turn = [...implementations.slice(k % 2), ...implementations.slice(0, k % 2)]
    for (const impl of turn)
      Object.assign(results[impl.key], JSON.parse(await impl.run(`${k}/${SUITE_SHARDS}`)).results)
  }
  const ours = Object.entries(results.ours)
  const failed = ours.filter(([, r]) => r.error !== undefined).map(([name]) => name)
  const rendered = ours.filter(([, r]) => r.error === undefined)
  const oursGeomean = geomean(rendered.map(([, r]) => r.rendersPerSec))
  if (!ctx.go.available) {
    const line = `The differential suite: ${rendered.length} cases, ${rate(oursGeomean)} renders/s (geometric mean); Go absent.`
    return {
      lines: [line],
      markdown: line,
      summary: summaryRow(figure, rate(oursGeomean), "Go's text/template", 'Go absent', '—'),
    }
  }
  const both = rendered.filter(([name]) => results.go[name] !== undefined)
  const ratios = both.map(([name, r]) => r.rendersPerSec / results.go[name].rendersPerSec)
  const differ = both.filter(([name, r]) => !sameBytes(r.output, results.go[name].output)).map(([name]) => name)
  const goGeomean = geomean(both.map(([name]) => results.go[name].rendersPerSec))
  const ratio = geomean(ratios)
  const sorted = [...ratios].sort((a, b) => a - b)
  const text = [
    `The differential suite (\`test/template/\`): the ${both.length} cases Go renders without error, each parsed once and`,
    'rendered over and over as the differential test builds it (its test functions, its `missingkey`, its extra',
    'templates): ours with `template.render` (`bench/suite.ts`), Go with `Execute` into a fresh `strings.Builder`',
    '(`test/template/oracle -bench`). Each case runs for',
    `${SUITE_BUDGET_MS} ms at a time, in rounds over all the cases of a shard (one untimed warm-up round, then ${SUITE_RUNS}`,
    "timed rounds; a case's figure is its median run); both read the clock every 16 renders. The cases are split in",
    `${SUITE_SHARDS} shards, measured by each implementation in a process of its own, in turn. ours/Go per case: median`,
    `${sorted[sorted.length >> 1].toFixed(2)}, lowest ${sorted[0].toFixed(2)}, highest ${sorted[sorted.length - 1].toFixed(2)};`,
    `geometric mean ${ratio.toFixed(2)} (ours ${rate(oursGeomean)} renders/s, Go ${rate(goGeomean)}).`,
    differ.length > 0
      ? `${differ.length} outputs differ from Go's, deliberately (the differential test lists why): ${differ.map((d) => `\`${d}\``).join(', ')}.`
      : "Every output is byte-for-byte Go's.",
    failed.length > 0
      ? `${failed.length} cases Go renders fail in ours, deliberately (the differential test lists why), and are left out: ${failed.map((d) => `\`${d}\``).join(', ')}.`
      : '',
  ]
    .filter((l) => l !== '')
    .join('\n')
  return {
    lines: [text],
    markdown: text,
    summary: summaryRow(figure, rate(oursGeomean), "Go's text/template", rate(goGeomean), ratio.toFixed(2)),
  }
}

function templateNames(extension) {
  return readdirSync(templatesDir)
    .filter((f) => f.endsWith(extension))
    .map((f) => f.slice(0, -extension.length))
    .sort()
}

function sameBytes(a, b) {
  return Buffer.from(a, 'utf8').equals(Buffer.from(b, 'utf8'))
}

function sortedChars(s) {
  return [...s].sort().join('')
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
function describeDifference({ name, ours, theirs }, label) {
  let i = 0
  while (i < ours.length && i < theirs.length && ours[i] === theirs[i]) i++
  const before = ours.slice(0, i)
  const line = before.split('\n').length
  const column = i - before.lastIndexOf('\n')
  const excerpt = (s) => JSON.stringify(s.slice(Math.max(0, i - 60), i + 60))
  const width = Math.max('ours'.length, label.length) + 1
  return [
    `${label === 'Go' ? 'MISMATCH' : 'DIFFERENCE'} in ${name}: first difference at line ${line}, column ${column} (character ${i}; ours has ${ours.length} characters, ${label} ${theirs.length}).`,
    `  ${'ours:'.padEnd(width)} ${excerpt(ours)}`,
    `  ${`${label}:`.padEnd(width)} ${excerpt(theirs)}`,
    `  (both excerpts start at character ${Math.max(0, i - 60)})`,
  ]
}

// ---------------------------------------------------------------- section: tool fan-out

async function fanoutSection(ctx) {
  const fanoutFile = await bundle(ctx, 'fanout.ts')
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
  const summary = report.results.map((r) =>
    summaryRow(
      `Fan-out: render calling N = ${r.n} tools, median (ms)`,
      r.medianMs.toFixed(1),
      'L, one tool call',
      String(report.latencyMs),
      (r.medianMs / report.latencyMs).toFixed(2),
    ),
  )
  return { lines, markdown, failed: problems.length > 0, summary }
}

// ---------------------------------------------------------------- section: hostile requests

async function hostileSection(ctx) {
  const first = await hostileTable(ctx)
  const second = await hostile2Table(ctx)
  return {
    lines: [...first.lines, '', ...second.lines],
    markdown: `${first.markdown}\n### Issue 27's rows\n\n${second.markdown}`,
    failed: first.failed || second.failed,
    summary: [...first.summary, ...second.summary],
  }
}

async function hostileTable(ctx) {
  // Not in ctx.tmp: the bundle leaves its packages to node_modules, which Node finds only from inside the repository.
  const outdir = join(root, 'node_modules', '.cache', 'bench-hostile')
  console.log(
    "wrangler dev on Redis: issue 12's hostile requests, one at a time, each followed by an ordinary render ...",
  )
  const report = await runBundled(ctx, 'hostile.ts', outdir)
  const rows = report.rows.map((r) => [
    String(r.row),
    r.input,
    `${r.status}${r.code ? ` ${r.code}` : ''}`,
    r.ms.toFixed(0),
    String(r.logLineBytes),
    String(r.next),
    r.problems.length === 0 ? 'ok' : 'FAILED',
  ])
  const table = makeTable(
    ['row', 'hostile request', 'answer', 'ms', 'log line (bytes)', 'next render', 'verdict'],
    ['right', 'left', 'left', 'right', 'right', 'right', 'left'],
    rows,
  )
  const failures = report.rows.flatMap((r) => r.problems.map((p) => `row ${r.row} (${r.input}): ${p}`))
  const lines = [table.text]
  const notes = []
  const judged = report.rows.filter((r) => r.note).map((r) => `row ${r.row} (${r.input}): ${r.note}`)
  if (judged.length > 0) {
    lines.push('', "Judged by the Worker's log line:", ...judged.map((j) => `  ${j}`))
    notes.push(
      "**Judged by the Worker's log line**: after the Worker answered 413 to a body it stopped reading, wrangler dev's " +
        "proxy (not there in production) sometimes cut the client's next upload or answered it itself; the Worker's " +
        'own log line for that request gives its answer and time:\n\n' +
        judged.map((j) => `- ${j}`).join('\n'),
    )
  }
  if (failures.length > 0) {
    lines.push('', 'FAILED:', ...failures.map((f) => `  ${f}`))
    notes.push('**Failed rows**:\n\n' + failures.map((f) => `- ${f}`).join('\n'))
  } else {
    lines.push('', `Every row answered as expected within ${report.boundMs} ms, and every next render answered 200.`)
  }
  const method = [
    "Each row of issue 12's table of hostile inputs is sent to the Worker under `wrangler dev`, reading a real Redis",
    'through the Upstash-protocol bridge, with the defaults the table was measured with (`RENDER_TIMEOUT_MS`',
    `${report.deadlineMs}, \`TOOL_TIMEOUT_MS\` 300), and a real tool server (test/support/tool-server.ts) that`,
    '`TOOL_ALLOWED_HOSTS` allows as `127.0.0.1:PORT` (so `localhost:PORT` is a host tools may not reach)',
    '(`bench/hostile.ts`). One request at a time; `ms` is from sending it to the last byte of its answer; `log line` is',
    "the Worker's request log line for it, as wrangler relayed it. A row passes when its answer is the expected one,",
    'what it must show holds (no request past the allow-list or to a dot segment, no Redis request for a bad id, at',
    `most 64 tool calls, no secret quoted), it answered within the deadline + 200 ms = ${report.boundMs} ms, and the next`,
    'ordinary render in the same Worker answered 200 (row 12 needs a Worker configured wrongly: a second `wrangler dev`,',
    'whose next request is `GET /health`).',
  ].join('\n')
  const markdown = [method, '', ...notes.flatMap((n) => [n, '']), table.markdown, ''].join('\n')
  const slowest = Math.max(...report.rows.map((r) => r.ms))
  const summary = [
    summaryRow(
      'Hostile requests: the slowest answer (ms)',
      slowest.toFixed(0),
      'render deadline + 200 ms',
      String(report.boundMs),
      (slowest / report.boundMs).toFixed(2),
    ),
    summaryRow(
      'Hostile requests: answered as expected, in time, next render 200',
      String(report.rows.filter((r) => r.problems.length === 0).length),
      'hostile requests sent',
      String(report.rows.length),
      '—',
    ),
  ]
  return { lines, markdown, failed: failures.length > 0, summary }
}

async function hostile2Table(ctx) {
  const outdir = join(root, 'node_modules', '.cache', 'bench-hostile-2')
  console.log(
    "wrangler dev on Redis: issue 27's hostile inputs, one at a time, each with an ordinary render meanwhile ...",
  )
  const report = await runBundled(ctx, 'hostile-2.ts', outdir)
  const meanwhile = (c) => (c ? `${c.status} in ${c.ms.toFixed(0)} ms` : '—')
  const rows = report.rows.map((r) => [
    String(r.row),
    r.input,
    r.server,
    r.code === 'timeout' ? 'timeout' : `${r.status}${r.code ? ` ${r.code}` : ''}`,
    r.code === 'timeout' ? `> ${r.ms.toFixed(0)}` : r.ms.toFixed(0),
    r.shows,
    meanwhile(r.concurrent),
    !r.judged ? 'for the record' : r.problems.length === 0 ? 'ok' : 'FAILED',
  ])
  const table = makeTable(
    ['row', 'hostile input', 'server', 'answer', 'ms', 'what it shows', 'render meanwhile', 'verdict'],
    ['right', 'left', 'left', 'left', 'right', 'left', 'right', 'left'],
    rows,
  )
  const floor = makeTable(
    ['server', 'load on a Worker of a few lines', 'ms', 'a request to it meanwhile'],
    ['left', 'left', 'right', 'right'],
    report.floor.map((f) => [f.server, f.input, f.ms.toFixed(0), meanwhile(f.concurrent)]),
  )
  const judged = report.rows.filter((r) => r.judged)
  const failures = judged.flatMap((r) => r.problems.map((p) => `row ${r.row} (${r.input}, ${r.server}): ${p}`))
  const lines = [table.text, '', floor.text]
  const notes = []
  if (failures.length > 0) {
    lines.push('', 'FAILED:', ...failures.map((f) => `  ${f}`))
    notes.push('**Failed rows**:\n\n' + failures.map((f) => `- ${f}`).join('\n'))
  } else {
    lines.push('', `Every row answered as expected within ${report.boundMs} ms, and every render meanwhile in time.`)
  }
  const method = [
    "Each row of issue 27's table is sent at the table's sizes to the Worker under `wrangler dev` on a real Redis, with",
    'the settings above, real tool and LLM servers (test/support/tool-server.ts, llm-server.ts), and a server whose',
    'event streams never end an event (test/support/drip-server.ts) (`bench/hostile-2.ts`, its rows in',
    '`bench/hostile-2-rows.ts`). The servers run on a thread of their own and the ordinary renders are sent and timed',
    "on another (bench/threads.ts), so that reading a row's megabytes holds up neither. First an ordinary render's usual",
    `time on each server: the median of 20, ${report.usualMs.toFixed(1)} ms under wrangler dev and ${report.miniflareUsualMs.toFixed(1)} ms under Miniflare. Then`,
    'each row, one at a time, after one ordinary render (so that those sent meanwhile find the cache warm, as the usual',
    'ones did), with the same ordinary render sent 50 ms after its input and every 100 ms while it is in',
    `flight (\`render meanwhile\`, the worst of them), which must answer 200 within its usual time + ${report.slackMs} ms. A row`,
    `passes when that holds, its input answered within the deadline + 200 ms = ${report.boundMs} ms (rows 6 and 9, many`,
    "requests at once, are judged by their counts alone), and what it shows is within the row's bound: row 1 a refusal",
    '(4xx, `isError` or a JSON-RPC error) or the call made without the undeclared arguments; rows 2, 8 and 12 400 (row',
    "2's naming the keyword); row 3 an answer of at most the MCP batch budget (`MCP_BATCH_BUDGET_BYTES` in the rows",
    "file) and workerd's RSS (VmRSS, sampled every 20 ms) growing less than 128 MB; row 4 a 422 or 503, on a Worker",
    "whose clock moves only across I/O as a deployed one's (`bench/frozen-clock.ts`); row 6 no acknowledged write lost",
    '(every 200 PUT in the base or the label afterwards); row 7 every cold render 200, each on a fresh `wrangler dev`',
    'with fresh local state, after a `GET /health`; row 9 one "found changed" version; row 10 the key absent from the',
    'answer; row 11 each upstream request and the answer at most 4 MiB. A request unanswered after 30 s is a `timeout`.',
    '',
    'Rows 3 (tools/call), 6, 9 and 11 load the dev server itself: many requests at once, or megabytes in the answers',
    "to the Worker's own fetches, each chunk of which costs `wrangler dev` a loopback connection. They run under",
    '`wrangler dev` for the record and are judged under Miniflare (the bundle in workerd, no dev server in front). The',
    'second table is the floor: what a request meets on a Worker of a few lines (bench/dev-server-floor.ts) under the',
    'same load, on each server, in the same run.',
  ].join('\n')
  const markdown = [method, '', ...notes.flatMap((n) => [n, '']), table.markdown, '', floor.markdown, ''].join('\n')
  const summary = [
    summaryRow(
      'Hostile requests, issue 27: answered as bounded, in time, render meanwhile in time',
      String(judged.filter((r) => r.problems.length === 0).length),
      'hostile inputs judged',
      String(judged.length),
      '—',
    ),
  ]
  return { lines, markdown, failed: failures.length > 0, summary }
}

/** Bundles bench/NAME (its packages left to node_modules, so in `outdir` inside the repository), runs it, parses its stdout. */
async function runBundled(ctx, name, outdir) {
  const file = await bundle(ctx, name, { outdir, packages: 'external' })
  try {
    return JSON.parse(await run(process.execPath, [file, '--root', root]))
  } finally {
    rmSync(outdir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------- section: endpoints

async function endpointSection(ctx) {
  // Not in ctx.tmp: the bundle leaves its packages to node_modules, which Node finds only from inside the repository.
  const outdir = join(root, 'node_modules', '.cache', 'bench')
  const endpointsFile = await bundle(ctx, 'endpoints.ts', { outdir, packages: 'external' })
  console.log(
    `Miniflare, then wrangler dev, on Redis: GET /health and a render, ${ENDPOINT_RUNS} runs × ${ENDPOINT_DURATION_S} s ` +
      `each at ${ENDPOINT_CONNECTIONS} connections (after ${ENDPOINT_WARMUP_S} s of warm-up each); then a CPU profile ` +
      `of each route under Miniflare for ${ENDPOINT_PROFILE_S} s ...`,
  )
  let report
  try {
    report = JSON.parse(
      await run(process.execPath, [
        // The profiler speaks to workerd's inspector over a WebSocket: Node 20 has the client behind this flag.
        '--experimental-websocket',
        endpointsFile,
        '--root',
        root,
        '--duration',
        String(ENDPOINT_DURATION_S),
        '--connections',
        String(ENDPOINT_CONNECTIONS),
        '--runs',
        String(ENDPOINT_RUNS),
        '--warmup',
        String(ENDPOINT_WARMUP_S),
        '--profile',
        String(ENDPOINT_PROFILE_S),
        ...(args['profile-dir'] ? ['--profile-dir', args['profile-dir']] : []),
      ]),
    )
  } finally {
    rmSync(outdir, { recursive: true, force: true })
  }
  const hostLabel = { miniflare: 'Miniflare', wrangler: 'wrangler dev' }
  const ms = (x) => x.toFixed(2)
  const ratio = (a, b) => (b > 0 ? (a / b).toFixed(2) : '—')
  const routeRow = (label, r) => [
    label,
    rate(r.median.requestsPerSec),
    ms(r.median.p50Ms),
    ms(r.median.p99Ms),
    r.runs.map((x) => rate(x.requestsPerSec)).join(' / '),
    r.runs.map((x) => String(x.upstashRequests)).join(' / '),
  ]
  const rows = []
  const summary = []
  for (const host of report.hosts) {
    const label = hostLabel[host.name]
    const floor = host.routes.find((r) => r.name === 'floor')
    const measured = host.routes.filter((r) => r.name !== 'floor')
    if (!floor || measured.length === 0)
      throw new Error(`bench/endpoints.ts reported no floor or no render under ${label}`)
    rows.push(routeRow(`${label}: ${floor.method} ${floor.path} (floor)`, floor))
    for (const route of measured) {
      rows.push(routeRow(`${label}: ${route.method} ${route.path}`, route), [
        `${label}: ${route.name}/floor`,
        ratio(route.median.requestsPerSec, floor.median.requestsPerSec),
        ratio(route.median.p50Ms, floor.median.p50Ms),
        ratio(route.median.p99Ms, floor.median.p99Ms),
        '',
        '',
      ])
    }
    const floorLabel = 'GET /health (floor)'
    for (const route of measured) {
      for (const [figure, key, format] of [
        ['requests/s', 'requestsPerSec', rate],
        ['p50 latency (ms)', 'p50Ms', ms],
        ['p99 latency (ms)', 'p99Ms', ms],
      ]) {
        summary.push(
          summaryRow(
            `Endpoints, ${label}: ${route.name}, ${figure}`,
            format(route.median[key]),
            floorLabel,
            format(floor.median[key]),
            ratio(route.median[key], floor.median[key]),
          ),
        )
      }
    }
  }
  const table = makeTable(
    ['route', 'requests/s', 'p50 (ms)', 'p99 (ms)', 'requests/s of each run', 'Upstash requests of each run'],
    ['left', 'right', 'right', 'right', 'right', 'right'],
    rows,
  )

  const lines = [table.text]
  const notes = []
  if (report.problems.length > 0) {
    lines.push('', 'THE SERVICE MISBEHAVED UNDER LOAD:', ...report.problems.map((p) => `  ${p}`))
    notes.push(
      '**The service misbehaved under load**: these figures cannot be trusted as they are.\n\n' +
        fence(report.problems.join('\n')),
    )
  } else {
    const total = (host, name) => host.routes.find((r) => r.name === name).runs.reduce((n, x) => n + x.responses, 0)
    const counts = report.hosts.map(
      (h) =>
        `${total(h, 'floor').toLocaleString('en-US')} from the floor, ${total(h, 'render').toLocaleString('en-US')} ` +
        `renders and ${total(h, 'draft').toLocaleString('en-US')} draft renders under ${hostLabel[h.name]}`,
    )
    lines.push('', `Every response was a 200 with the expected body (${counts.join('; ')}); no connection errors.`)
  }

  const profiles = report.hosts.flatMap((h) => h.profiles)
  const profileParts = profiles.map((p) => {
    const perRequest = (x) => ((x / p.responses) * 1000).toFixed(1)
    const t = makeTable(
      ['function (source)', 'self µs/request', 'total µs/request'],
      ['left', 'right', 'right'],
      p.top.map((e) => [e.name, perRequest(e.selfMs), perRequest(e.totalMs)]),
    )
    const heading =
      `${p.route}: ${p.responses.toLocaleString('en-US')} answers, the isolate busy ` +
      `${perRequest(p.busyMs)} µs per answer; the ${p.top.length} functions with the most self time:`
    lines.push('', heading, t.text)
    return `${heading}\n\n${t.markdown}\n`
  })

  const method = [
    'The Worker runs on 127.0.0.1 in two hosts, one after the other: under Miniflare (miniflare ' +
      `${report.hosts.find((h) => h.name === 'miniflare')?.version ?? '—'}: workerd running the bundle`,
    '`wrangler deploy --dry-run` writes, with nothing in front of it, `bench/miniflare.ts`), and under `wrangler dev`',
    `(wrangler ${report.hosts.find((h) => h.name === 'wrangler')?.version ?? '—'}: a Node proxy in front of workerd, which`,
    "also relays the Worker's logs through workerd's inspector, so the Worker's own cost weighs less in its figures).",
    'In both, `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` point at `test/support/upstash-bridge.ts`, the',
    'Upstash-REST-protocol bridge in front of a real `redis-server` (`bench/endpoints.ts`, bundled by esbuild, run by',
    `Node). Before they start, the ${report.records} records of \`examples/\` are written into Redis with the real`,
    "`@upstash/redis` client, each file's text under `shenma:` + its path below `examples/` without `.json`, `/` as `:`.",
    'Once a host is ready, `GET /health` must name the Upstash store, and 20 requests to each route must all',
    `answer 200 with the right body; then each route takes ${report.warmupS} s of untimed load. Then ${report.runs} rounds, each loading`,
    "`GET /health` (a trivial route of the same app: the platform's floor) and then",
    '`POST /api/prompts/evaluator.quick_review/render` with `{"args":{"code":"x := 1"}}` (the example prompt, which',
    "reads two environs; caches warm) with autocannon from the bench's own process, for",
    `${report.durationS} s each at ${report.connections} connections. A run's requests/s is autocannon's mean over its one-second`,
    "samples, its p50 and p99 those of its 2xx responses' latencies; each figure is the median of the runs. Every",
    'response is checked: a status other than 200, or a 200 without the expected prompt, is counted and reported with',
    'when it came beside when the Worker went to Redis, and so are the errors and warnings the host logs.',
    "render/floor is the figure we steer by: for requests/s, the share of the floor's throughput a render keeps (1 would",
    "make a render free); for latencies, how many times the floor's latency a render takes. The Worker keeps what it",
    'read from Redis for 5 s (lib/store/cached.ts); the last column is how many Upstash requests it made during each',
    'run. The load generator, the host, the bridge and Redis share the machine, so the absolute figures are',
    'lower than on separate machines; the ratio is what compares. draft/floor is the same prompt sent as a draft',
    '(`POST /api/render`, its text in the body): parsed, its args schema compiled and its record checked on every request.',
  ].join('\n')
  const profileMethod = [
    `Then, under a second Miniflare with workerd's inspector open, each route is loaded for ${report.profileS} s more while`,
    "V8's profiler samples the Worker's isolate every 100 µs (`bench/profile.ts` names each function with its source",
    "file from the bundle's module comments; `npm run bench -- --profile-dir DIR` keeps the `.cpuprofile` files for",
    'Chrome DevTools). The inspector is not open during the measured runs: with it open, workerd hands every',
    "`console.log` to it, which slows the floor by about a third; so in the profiles, the request's one log line",
    '(`console.log`, shown as `(native) in emit`) costs more than it does in the runs above. Self time is',
    "time in the function itself, total time with what it called; both are per answer. `(program)` is V8's own work",
    "outside JavaScript, and workerd's own (parsing HTTP, the Response's body) is not in the profile.",
  ].join('\n')
  const markdown = [
    method,
    '',
    ...notes.flatMap((n) => [n, '']),
    table.markdown,
    '',
    ...(profiles.length > 0 ? [profileMethod, '', ...profileParts] : []),
  ].join('\n')
  return { lines, markdown, failed: report.problems.length > 0, summary }
}

// ---------------------------------------------------------------- section: size

/** What a cold start of the Worker may cost over a Worker of a few lines: workerd's CPU to the first answer, in ms. */
const STARTUP_BUDGET_MS = 100

async function startupSection(ctx) {
  console.log('Miniflare, fresh each time: workerd CPU to the first answer, the Worker against a trivial one ...')
  const outdir = join(root, 'node_modules', '.cache', 'bench-startup')
  const report = await runBundled(ctx, 'startup.ts', outdir)
  const trivial = report.trivialMedianMs
  const worker = report.workerMedianMs
  const over = worker - trivial
  const within = over <= STARTUP_BUDGET_MS
  const spread = (ms) => `${Math.min(...ms).toFixed(0)}-${Math.max(...ms).toFixed(0)}`
  const table = makeTable(
    ['Worker', 'median (ms)', 'runs (ms)'],
    ['left', 'right', 'right'],
    [
      ['a Worker of a few lines (bench/dev-server-floor.ts)', trivial.toFixed(0), spread(report.trivialMs)],
      ['the Worker, on its embedded store', worker.toFixed(0), spread(report.workerMs)],
    ],
  )
  const verdict =
    `The Worker's cold start costs ${over.toFixed(0)} ms of CPU over the trivial one's: ` +
    `${within ? 'within' : 'OVER'} the budget of ${STARTUP_BUDGET_MS} ms.`
  const method = [
    "workerd's CPU (its threads' time on a CPU, from /proc's schedstat) from a fresh start to the first",
    `answer to \`GET /health\`, in a fresh Miniflare each time, ${report.runs} times each, alternating (\`bench/startup.ts\`).`,
    'Both Workers are bundled as `wrangler deploy --minify` bundles them and listed to Miniflare as one module, so that',
    "Miniflare's own scan of a bundle for imports, which Cloudflare does not do, stays out. Miniflare's own Workers run",
    "in both: the difference of the medians is what the Worker's code costs a cold start. This is what a bigger bundle",
    'costs, its bytes only in part: workerd parses every module at startup, even one only imported lazily, and what',
    "runs at load costs more. Cloudflare's startup limit is 1 s of it; the budget here, 100 ms over the trivial Worker.",
  ].join('\n')
  const markdown = [method, '', table.markdown, '', verdict, ''].join('\n')
  const summary = [
    summaryRow(
      'Startup: workerd CPU to the first answer, over a trivial Worker (ms)',
      over.toFixed(0),
      'budget',
      String(STARTUP_BUDGET_MS),
      (over / STARTUP_BUDGET_MS).toFixed(2),
    ),
  ]
  return { lines: [table.text, '', verdict], markdown, failed: !within, summary }
}

// ---------------------------------------------------------------- section: keyspace

/** Fresh Workers per figure of the keyspace section (the median of their times is the figure). */
const KEYSPACE_RUNS = 3
const KEYSPACE_LATENCIES_MS = [0, 20]
/** Issue 29's acceptance: at a million keys, at most this many Redis requests, and this much of the time at 0 keys. */
const KEYSPACE_MAX_REQUESTS = 3
const KEYSPACE_MAX_RATIO = 1.5

async function keyspaceSection(ctx) {
  const counts = args['keyspace-counts']
  console.log(
    `Miniflare, fresh each time: the first render in databases of ${counts} filler keys, ` +
      `+${KEYSPACE_LATENCIES_MS.join(' and +')} ms per Redis request, ${KEYSPACE_RUNS} Workers each ...`,
  )
  const outdir = join(root, 'node_modules', '.cache', 'bench-keyspace')
  const file = await bundle(ctx, 'keyspace.ts', { outdir, packages: 'external' })
  let report
  try {
    report = JSON.parse(
      await run(process.execPath, [
        file,
        '--root',
        root,
        '--counts',
        counts,
        '--latencies',
        KEYSPACE_LATENCIES_MS.join(','),
        '--runs',
        String(KEYSPACE_RUNS),
      ]),
    )
  } finally {
    rmSync(outdir, { recursive: true, force: true })
  }
  const keys = (n) => n.toLocaleString('en-US')
  const commands = (c) =>
    Object.entries(c)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, n]) => `${name} ${n}`)
      .join(', ') || 'none'
  const rows = report.counts.flatMap((count) =>
    count.cells.map((cell) => [
      keys(count.keys),
      `+${cell.latencyMs}`,
      String(cell.requests),
      commands(cell.commands),
      cell.medianMs.toFixed(0),
      cell.renders.map((r) => r.ms.toFixed(0)).join(', '),
      [...new Set(cell.renders.map((r) => (r.status === 0 ? '200, wrong' : String(r.status))))].join(', '),
    ]),
  )
  const table = makeTable(
    ['keys', 'added ms', 'Redis requests', 'commands', 'time (ms)', 'runs (ms)', 'status'],
    ['right', 'right', 'right', 'left', 'right', 'right', 'left'],
    rows,
  )
  const scheduledRows = report.counts.map((count) => {
    const s = count.scheduled
    return s.handler === 'none'
      ? [keys(count.keys), 'no scheduled handler', '—', '—', '—']
      : [keys(count.keys), String(s.runs), String(s.requests), commands(s.commands), s.ms.toFixed(0)]
  })
  const scheduled = makeTable(
    ['keys', 'runs until the index was ready', 'Redis requests', 'commands', 'time (ms)'],
    ['right', 'right', 'right', 'left', 'right'],
    scheduledRows,
  )

  // Judged at the largest count measured, against 0 keys, at each added latency.
  const first = report.counts.find((c) => c.keys === 0)
  const last = report.counts[report.counts.length - 1]
  const verdicts = []
  const failures = []
  const summary = []
  if (!first || last.keys === 0) {
    failures.push('the acceptance needs 0 keys and a larger count among --keyspace-counts')
  } else {
    for (const latencyMs of KEYSPACE_LATENCIES_MS) {
      const base = first.cells.find((c) => c.latencyMs === latencyMs)
      const big = last.cells.find((c) => c.latencyMs === latencyMs)
      const ratio = big.medianMs / base.medianMs
      const requestsOk = big.requests <= KEYSPACE_MAX_REQUESTS
      const timeOk = ratio <= KEYSPACE_MAX_RATIO
      verdicts.push(
        `+${latencyMs} ms: at ${keys(last.keys)} keys ${big.requests} Redis requests ` +
          `(${requestsOk ? 'within' : 'OVER'} ${KEYSPACE_MAX_REQUESTS}), ${big.medianMs.toFixed(0)} ms, ` +
          `${ratio.toFixed(2)}x the ${base.medianMs.toFixed(0)} ms at 0 keys ` +
          `(${timeOk ? 'within' : 'OVER'} ${KEYSPACE_MAX_RATIO}x).`,
      )
      if (!requestsOk) failures.push(`+${latencyMs} ms: ${big.requests} Redis requests at ${keys(last.keys)} keys`)
      if (!timeOk) failures.push(`+${latencyMs} ms: ${ratio.toFixed(2)}x the time at 0 keys`)
      summary.push(
        summaryRow(
          `Keyspace: first render at ${keys(last.keys)} keys, +${latencyMs} ms per Redis request (ms)`,
          big.medianMs.toFixed(0),
          '0 keys',
          base.medianMs.toFixed(0),
          ratio.toFixed(2),
        ),
        summaryRow(
          `Keyspace: its Redis requests at ${keys(last.keys)} keys, +${latencyMs} ms`,
          String(big.requests),
          'limit',
          String(KEYSPACE_MAX_REQUESTS),
          (big.requests / KEYSPACE_MAX_REQUESTS).toFixed(2),
        ),
      )
    }
  }
  const wrong = report.counts.flatMap((c) => c.cells.flatMap((cell) => cell.renders)).filter((r) => r.status !== 200)
  if (wrong.length > 0) failures.push(`${wrong.length} first renders did not answer 200 with the expected prompt`)
  const method = [
    `Per count of filler keys, a database of its own on a local redis-server behind the Upstash-protocol bridge holds`,
    `the example records, a stored one-variable prompt (\`bench.one\`: \`Answer in {{.vscode.programming_language}}.\`)`,
    "and the filler, written by the bridge in Redis itself: half another application's keys (`otherapp:session:<n>`),",
    'half `shenma:environs:chat:history:<n>` (a small JSON object each). When the Worker exports a `scheduled` handler,',
    "it runs (Miniflare's `getWorker().scheduled()`) until `shenma:index:state` says the record index is `ready`.",
    `Then, per added latency of every Redis request (the bridge waits that long before running it: a Redis a region`,
    `away), ${report.runs} times: a fresh Miniflare (a fresh workerd: a cold isolate and a cold Cache API) on one bundle`,
    'of the Worker, and its first request, `POST /api/prompts/bench.one/render`: the time until its whole answer, and',
    'the Upstash requests it made with their commands, counted by the bridge (the largest of the runs).',
    'RENDER_TIMEOUT_MS is raised to 60 s so that a slow render is timed rather than cut off at 500 ms.',
    `Acceptance (issue 29), at the largest count: at most ${KEYSPACE_MAX_REQUESTS} Redis requests and at most`,
    `${KEYSPACE_MAX_RATIO}x the median time at 0 keys, at each added latency. \`npm run bench -- --only keyspace\`.`,
  ].join('\n')
  const notes = [...verdicts, ...failures.map((f) => `**FAILED**: ${f}.`)]
  const problems = report.problems.length > 0 ? ['', fence(report.problems.slice(0, 5).join('\n'))] : []
  const markdown = [
    method,
    '',
    table.markdown,
    '',
    'The scheduled handler, before the renders:',
    '',
    scheduled.markdown,
    '',
    ...notes,
    ...problems,
    '',
  ].join('\n')
  const lines = [table.text, '', scheduled.text, '', ...notes, ...report.problems.slice(0, 5)]
  return { lines, markdown, failed: failures.length > 0, summary }
}

// ---------------------------------------------------------------- section: soak

/** Redis is gone for a tenth of the soak, at most this long: 60 s of the default 10 minutes. */
const SOAK_DOWN_S = 60
/** Memory is flat when the median RSS of the soak's last window is within this share over its first window's. */
const SOAK_MAX_GROWTH = 0.1
/** The windows compared, in s: a minute, or a fifth of a shorter soak. */
const SOAK_WINDOW_S = 60
/** Redis back, answers are fresh again within this many seconds (issue 29). */
const SOAK_FRESH_WITHIN_S = 5

async function soakSection(ctx) {
  const minutes = Number(args['soak-minutes'])
  if (!(minutes > 0)) throw new Error(`--soak-minutes must be a positive number, not ${args['soak-minutes']}`)
  const keys = Number(args['soak-keys'])
  const downS = Math.min(SOAK_DOWN_S, (minutes * 60) / 10)
  console.log(
    `Miniflare: renders at 80 % of capacity for ${minutes} min with ${keys.toLocaleString('en-US')} filler ` +
      `keys, Redis gone for ${downS} s in the middle ...`,
  )
  const outdir = join(root, 'node_modules', '.cache', 'bench-soak')
  const file = await bundle(ctx, 'soak.ts', { outdir, packages: 'external' })
  let r
  try {
    r = JSON.parse(
      await run(process.execPath, [
        file,
        '--root',
        root,
        '--minutes',
        String(minutes),
        '--keys',
        String(keys),
        '--down-s',
        String(downS),
      ]),
    )
  } finally {
    rmSync(outdir, { recursive: true, force: true })
  }
  const window = Math.min(SOAK_WINDOW_S, Math.floor(r.durationS / 5))
  const rss = (from, to) =>
    median(
      r.seconds
        .slice(from, to)
        .map((s) => s.rssMb)
        .filter((mb) => mb > 0),
    )
  const firstMb = rss(0, window)
  const lastMb = rss(r.durationS - window, r.durationS)
  const growth = lastMb / firstMb - 1
  const notOk = r.totals.responses - (r.totals.byStatus['200'] ?? 0)
  const during = r.seconds.slice(Math.ceil(r.down.fromS), Math.floor(r.down.toS))
  const sum = (xs, f) => xs.reduce((a, x) => a + f(x), 0)
  const downAnswers = sum(during, (s) => s.ok + sum(Object.values(s.other), (n) => n))
  const downStale = sum(during, (s) => s.stale)
  const downFailed = sum(during, (s) => sum(Object.values(s.other), (n) => n))
  const checks = [
    [
      `every answer 200`,
      notOk === 0,
      `${notOk} of ${r.totals.responses} were not (${JSON.stringify(r.totals.byStatus)})`,
    ],
    [
      'no errors or timeouts',
      r.totals.errors + r.totals.timeouts === 0,
      `${r.totals.errors} errors, ${r.totals.timeouts} timeouts`,
    ],
    [
      `memory flat (median RSS of the last ${window} s within ${100 * SOAK_MAX_GROWTH} % over the first ${window} s)`,
      growth <= SOAK_MAX_GROWTH,
      `${firstMb.toFixed(1)} MB, then ${lastMb.toFixed(1)} MB (${(100 * growth).toFixed(1)} %)`,
    ],
    [
      `fresh answers within ${SOAK_FRESH_WITHIN_S} s of Redis coming back`,
      r.freshAfterS <= SOAK_FRESH_WITHIN_S,
      `the last stale answer ${r.freshAfterS.toFixed(1)} s after`,
    ],
  ]
  const table = makeTable(
    ['check', 'result', 'figures'],
    ['left', 'left', 'left'],
    checks.map(([name, ok, figures]) => [name, ok ? 'ok' : 'FAILED', figures]),
  )
  const outage =
    `While Redis was gone (${r.down.fromS.toFixed(0)}-${r.down.toS.toFixed(0)} s): ${downAnswers} answers, ` +
    `${downStale} of them 200 with X-Prompt-Stale, ${downFailed} not 200` +
    (downFailed > 0 && downStale === 0
      ? ': the Worker does not answer from a last good copy while Redis is down (stale-if-error is not in this tree).'
      : '.') +
    ` ${r.totals.staleWhileUp} stale answers came while Redis was up.`
  const timeline = makeTable(
    ['from (s)', '200', 'of them stale', 'not 200', 'workerd RSS (MB)'],
    ['right', 'right', 'right', 'left', 'right'],
    Array.from({ length: Math.ceil(r.seconds.length / 30) }, (_, i) => {
      const part = r.seconds.slice(30 * i, 30 * i + 30)
      const others = {}
      for (const s of part) for (const [code, n] of Object.entries(s.other)) others[code] = (others[code] ?? 0) + n
      return [
        String(30 * i),
        String(sum(part, (s) => s.ok)),
        String(sum(part, (s) => s.stale)),
        Object.keys(others).length === 0 ? '—' : JSON.stringify(others),
        Math.max(...part.map((s) => s.rssMb)).toFixed(1),
      ]
    }),
  )
  const crons = r.crons.map((c) => `${c.atS.toFixed(0)} s ${c.outcome}${c.redisDown ? ' (Redis gone)' : ''}`).join(', ')
  const method = [
    `A database of ${r.keys.toLocaleString('en-US')} filler keys and the example records (as in Keyspace), the Worker in`,
    `one Miniflare throughout. Its scheduled handler ran until the index was ready` +
      (r.scheduled.handler === 'none' ? ' (it has none)' : ` (${r.scheduled.runs} runs)`) +
      `; then ${r.connections} connections of unlimited renders measured its capacity, ${r.capacity.perSec.toFixed(0)}`,
    `renders/s, and autocannon rendered \`bench.one\` at ${r.ratePerSec}/s (80 %) for ${r.durationS} s. Redis was taken`,
    "away by the bridge, every Upstash request's connection closed unanswered, rather than by stopping redis-server:",
    'that is what a Worker sees of a Redis that is unreachable, and the keys (redis-server runs without persistence) stay',
    `for its return. The scheduled handler ran once a minute during the load, as the cron does. \`npm run bench -- --only soak\`.`,
  ].join('\n')
  const burst = r.capacity
  const notes = [
    `The capacity burst's answers: ${JSON.stringify(burst.byStatus)}, ${burst.errors} errors or timeouts.`,
    outage,
    `Scheduled runs during the load: ${crons || 'none'}.`,
  ]
  const samples = r.samples.length > 0 ? ['', fence(r.samples.join('\n'))] : []
  const problems = r.problems.length > 0 ? ['', fence(r.problems.join('\n').slice(0, 4000))] : []
  const failed = checks.some(([, ok]) => !ok)
  const markdown = [method, '', table.markdown, '', ...notes, '', timeline.markdown, ...samples, ...problems, ''].join(
    '\n',
  )
  const summary = [
    summaryRow(`Soak: answers not 200 (Redis gone ${downS} s)`, String(notOk), 'limit', '0', '—'),
    summaryRow(
      'Soak: workerd RSS growth, last window over first (%)',
      (100 * growth).toFixed(1),
      'limit',
      String(100 * SOAK_MAX_GROWTH),
      (growth / SOAK_MAX_GROWTH).toFixed(2),
    ),
  ]
  return { lines: [table.text, '', ...notes, '', timeline.text, ...r.samples], markdown, failed, summary }
}

async function sizeSection(ctx) {
  const outdir = join(ctx.tmp, 'deploy')
  console.log(`npx wrangler deploy --dry-run --outdir ${outdir} --minify --metafile ...`)
  const worker = buildWorker(outdir)
  const { gzipBytes, wranglerReport } = worker
  const kib = (bytes) => (bytes / 1024).toFixed(2)

  const all = Buffer.concat(worker.modules.map((m) => m.bytes))
  const rows = [
    ...worker.modules.map((m) => [m.name, kib(m.bytes.length), kib(gzipSync(m.bytes).length)]),
    ...(worker.modules.length > 1 ? [['all modules', kib(all.length), kib(gzipBytes)]] : []),
  ]
  const table = makeTable(['module', 'minified (KiB)', 'gzip (KiB)'], ['left', 'right', 'right'], rows)
  const parts = makeTable(
    ['package', 'minified (KiB)', 'share'],
    ['left', 'right', 'right'],
    composition(worker.metafile).map((p) => [p.owner, kib(p.bytes), `${(100 * p.share).toFixed(1)} %`]),
  )
  const check = wranglerReport
    ? `wrangler's own report: ${wranglerReport.kib} KiB / gzip: ${wranglerReport.gzipKib} KiB.`
    : "wrangler's own report (Total Upload) was not found in its output."
  const within = gzipBytes <= GZIP_BUDGET_BYTES
  const lines = [
    table.text,
    '',
    parts.text,
    '',
    `gzip ${kib(gzipBytes)} KiB: ${within ? 'within' : 'OVER'} the budget of ${kib(GZIP_BUDGET_BYTES)} KiB ` +
      `(${((100 * gzipBytes) / GZIP_BUDGET_BYTES).toFixed(1)} %). ${check}`,
  ]
  const method = [
    '`npx wrangler deploy --dry-run --outdir DIR --minify` bundles the Worker as a deploy would (its build step,',
    '`node scripts/generate.mjs`, included) and writes the modules it would upload into DIR; the figure is the gzip',
    'size (`node:zlib`, default level) of those modules together, as wrangler computes it, source map left out. The',
    `baseline is not measured: it is the tripwire of ${kib(GZIP_BUDGET_BYTES)} KiB gzip that CI holds the bundle to`,
    "(`scripts/check-bundle-size.mjs`). Cloudflare no longer limits a bundle's compressed size (64 MiB uncompressed",
    'remains); what a bigger bundle costs is startup CPU, which bytes predict only in part (parsing; what runs at',
    'load costs more): see Startup.',
    check,
  ].join('\n')
  const composed = [
    "What the bundle is made of, from esbuild's metafile (wrangler's `--metafile`): the minified bytes each",
    "input file contributes to the output (`bytesInOutput`), summed per npm package, and per folder for the project's",
    'own files (marked "ours").',
  ].join('\n')
  const markdown = [method, '', table.markdown, '', composed, '', parts.markdown, ''].join('\n')
  const summary = [
    summaryRow(
      'Size: Worker bundle, gzip (KiB)',
      kib(gzipBytes),
      'tripwire (CI)',
      kib(GZIP_BUDGET_BYTES),
      (gzipBytes / GZIP_BUDGET_BYTES).toFixed(3),
    ),
  ]
  return { lines, markdown, failed: !within, summary }
}

// ---------------------------------------------------------------- helpers

/** Bundles bench/NAME.ts for Node with esbuild; resolves to the bundle's path. */
async function bundle(ctx, name, { outdir = ctx.tmp, packages } = {}) {
  const outfile = join(outdir, name.replace(/\.ts$/, '.mjs'))
  await esbuild.build({
    entryPoints: [join(benchDir, name)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
    ...(packages ? { packages } : {}),
  })
  return outfile
}

/** One row of the summary table: [figure, ours, baseline, baseline's figure, ours/baseline]. */
function summaryRow(figure, ours, baseline, baselineFigure, ratio) {
  return [figure, ours, baseline, baselineFigure, ratio]
}

/** Text as a fenced block in Markdown. */
function fence(text) {
  return ['```text', text, '```'].join('\n')
}

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

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
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
