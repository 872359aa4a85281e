/**
 * Sends the Worker the hostile inputs of issue 27's table under `wrangler
 * dev` on a real Redis, with real tool, MCP, drip (test/support/drip-server.ts)
 * and LLM servers, the settings of bench/hostile-common.ts, and ADMIN_TOKEN
 * set for the writes. bench/run.mjs bundles this file and runs it:
 *
 *   node hostile-2.mjs --root DIR [--rows 3,5]
 *
 * (--rows: only those rows of the table.)
 *
 * First the ordinary render's usual time: the median of USUAL_RENDERS of it,
 * one after the other, on each server it is sent to. Then, for each row, its
 * input (bench/hostile-2-rows.ts) and, CONCURRENT_AFTER_MS after it was sent
 * and then every CONCURRENT_EVERY_MS while it is in flight, an ordinary
 * render, each of which must answer 200 within its usual time plus
 * CONCURRENT_SLACK_MS (the worst is reported). A row passes when that holds,
 * its input answered within BOUND_MS (rows of many requests, 6 and 9, judge
 * their counts only) and what the row checks holds. A row whose request did
 * not answer within REQUEST_WAIT_MS is recorded as a timeout, and the Worker,
 * whose isolate may still be frozen, is started afresh. Row 4 runs on a Worker
 * whose clock moves as a deployed one's (bench/frozen-clock.ts).
 *
 * A row that loads the dev server itself (Row.devServer: many requests at
 * once, or megabytes in the answers to the Worker's fetches) runs under
 * wrangler dev for the record, then under Miniflare, where it is judged; and
 * first, the floor: what a request to /health meets on a Worker of a few lines
 * (bench/dev-server-floor.ts) under the same shape of load in wrangler dev.
 * It prints, on stdout:
 *
 *   {"boundMs": 700, "usualMs": 9.1, "miniflareUsualMs": 7.2, "slackMs": 200,
 *    "floor": [{"shape": "requests", "input": "...", "ms": 420, "concurrent": {"status": 200, "ms": 150}}],
 *    "rows": [{"row": 1, "input": "...", "server": "wrangler dev", "judged": true, "status": 200, "code": null,
 *              "ms": 12.3, "shows": "...", "concurrent": {"status": 200, "ms": 10.2}, "problems": []}]}
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Redis } from '@upstash/redis'
import { startMiniflare } from './miniflare'
import type { MiniflareWorker } from './miniflare'
import { inThread, startProbe, startServers } from './threads'
import type { Sent } from './threads'
import { BOUND_MS, DEADLINE_MS, ORDINARY, REQUEST_WAIT_MS, TOOL_TIMEOUT_MS, attempt, timeout } from './hostile-common'
import { ADMIN_TOKEN, LLM_KEY, rows, writeRecords } from './hostile-2-rows'
import type { DevServerLoad, Outcome, Servers } from './hostile-2-rows'
import { median, run } from './stats'
import { log, startWrangler, takeDatabase, writeExamples } from './worker'
import type { WranglerDev } from './worker'

const USUAL_RENDERS = 20
/** When the ordinary render is sent, after the row's input. */
const CONCURRENT_AFTER_MS = 50
/** Then one more every this many ms while the input is in flight, CONCURRENT_RENDERS at most. */
const CONCURRENT_EVERY_MS = 100
const CONCURRENT_RENDERS = 10
/** How much longer than usual the ordinary render sent meanwhile may take. */
const CONCURRENT_SLACK_MS = 200

/** Where a row ran: wrangler dev, wrangler dev on bench/frozen-clock.ts, or the bundle under Miniflare. */
type Server = 'wrangler dev' | 'wrangler dev, deployed clock' | 'Miniflare'

interface RowReport {
  row: number
  input: string
  server: Server
  /** false: run for the record, under a dev server whose own cost the floor shows; the row is judged on Miniflare. */
  judged: boolean
  status: number
  code: string | null
  ms: number
  shows: string
  /** The ordinary render sent meanwhile; null for rows that send none (row 7's renders are ordinary ones). */
  concurrent: Sent | null
  problems: string[]
}

/** What wrangler dev costs a Worker of a few lines (bench/dev-server-floor.ts) under a shape of a row's load. */
interface FloorReport {
  server: Server
  shape: DevServerLoad
  input: string
  ms: number
  /** The worst of the requests to /health sent meanwhile. */
  concurrent: Sent
}

/**
 * Sends `ordinary` CONCURRENT_AFTER_MS after `input` was sent, then every
 * CONCURRENT_EVERY_MS while it is in flight: whenever the input holds the
 * isolate, one meets it. The worst of them: a failure, else the slowest.
 */
async function meanwhile(input: Promise<unknown>, ordinary: () => Promise<Sent>, what: string): Promise<Sent> {
  let answered = false
  void input.then(() => (answered = true))
  const sent: Promise<Sent>[] = []
  await Promise.race([input, timeout(CONCURRENT_AFTER_MS)])
  if (answered) log(`${what}: its input answered before the ordinary request was sent`)
  do {
    sent.push(ordinary())
    await Promise.race([input, timeout(CONCURRENT_EVERY_MS)])
  } while (!answered && sent.length < CONCURRENT_RENDERS)
  const done = await Promise.all(sent)
  return done.reduce((worst, r) =>
    (r.status !== 200 && worst.status === 200) || (r.status === worst.status && r.ms > worst.ms) ? r : worst,
  )
}

/** The shapes of load under which the floor is measured, as the rows that name them load the Worker. */
function floorShapes(tools: string): { shape: DevServerLoad; input: string; run(base: string): Promise<unknown> }[] {
  return [
    {
      shape: 'requests',
      // As a row's PUTs each send their write to Redis: one small fetch each.
      input: '3 × 41 concurrent requests, each fetching a small answer',
      run: async (base) => {
        const small = `${base}/fetch?n=1&url=${encodeURIComponent(`${tools}/tools/floor?group=floor`)}`
        for (let round = 0; round < 3; round++)
          await Promise.all(Array.from({ length: 41 }, () => fetch(small).then((r) => r.text())))
      },
    },
    {
      shape: 'bodies',
      input: 'one request whose Worker fetches 4 answers of 1 MB',
      run: (base) =>
        fetch(`${base}/fetch?n=4&url=${encodeURIComponent(`${tools}/big/1000000/tools/b`)}`).then((r) => r.text()),
    },
  ]
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { root: { type: 'string' }, rows: { type: 'string' } } })
  if (!values.root) throw new Error('--root (the repository) is required')
  const root = values.root
  const only = values.rows ? new Set(values.rows.split(',').map(Number)) : undefined

  // This file is the bench's bundle: its threads are this file again (bench/threads.ts).
  const file = fileURLToPath(import.meta.url)
  const servers = await startServers(file)
  const probe = startProbe(file)
  const workers = new Set<WranglerDev>()
  let miniflare: MiniflareWorker | undefined
  const states: string[] = []
  try {
    const token = await takeDatabase(servers.bridge)
    await writeExamples(root, servers.bridge, token)
    const redis = new Redis({ url: servers.bridge, token, enableTelemetry: false, automaticDeserialization: false })
    const addresses: Servers = { tools: servers.tools, drip: servers.drip, llm: servers.llm.origin, redis }
    await writeRecords(addresses)

    const vars = {
      UPSTASH_REDIS_REST_URL: servers.bridge,
      UPSTASH_REDIS_REST_TOKEN: token,
      RENDER_TIMEOUT_MS: String(DEADLINE_MS),
      TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS),
      TOOL_ALLOWED_HOSTS: `${new URL(servers.tools).host},${new URL(servers.drip).host}`,
      LLM_BASE_URL: servers.llm.url,
      LLM_API_KEY: LLM_KEY,
      LLM_ROUTES: JSON.stringify({ drip: { baseURL: `${servers.drip}/v1`, apiKeyVar: 'LLM_API_KEY' } }),
      ADMIN_TOKEN,
    }
    /** A Worker of its own local state (a fresh one: no Cache API entries), ready once it answered /health. */
    const start = async (script?: string): Promise<WranglerDev> => {
      const state = mkdtempSync(join(os.tmpdir(), 'hostile-2-state-'))
      states.push(state)
      const dev = await startWrangler(root, vars, undefined, { script, persistTo: state })
      workers.add(dev)
      const health = await fetch(`${dev.base}/health`)
      if (health.status !== 200) throw new Error(`/health answered ${health.status}: ${await health.text()}`)
      return dev
    }
    const stop = async (dev: WranglerDev): Promise<void> => {
      workers.delete(dev)
      await dev.stop()
    }
    const ordinary = (base: string) => () => probe.post(`${base}${ORDINARY.path}`, ORDINARY.body)
    /** The ordinary render's usual time on `base`: the median of USUAL_RENDERS, one after the other. */
    const usualOn = async (base: string): Promise<number> => {
      const usual: number[] = []
      for (let i = 0; i < USUAL_RENDERS; i++) {
        const render = await ordinary(base)()
        if (render.status !== 200) throw new Error(`an ordinary render answered ${render.status} before any row`)
        usual.push(render.ms)
      }
      return median(usual)
    }
    let dev = await start()
    const usualMs = await usualOn(dev.base)
    log(`wrangler dev is ready on ${dev.base}; an ordinary render takes ${usualMs.toFixed(1)} ms (median)`)
    let miniflareUsualMs = 0

    const selected = rows(addresses, { start, stop }).filter((r) => !only || only.has(r.row))
    const floor: FloorReport[] = []
    const loads = new Set(selected.flatMap((r) => (r.devServer ? [r.devServer] : [])))
    if (loads.size > 0) {
      const script = join(root, 'bench', 'dev-server-floor.ts')
      const dev = await start(script)
      const mf = await startMiniflare(root, {}, { script })
      for (const [server, base] of [
        ['wrangler dev', dev.base],
        ['Miniflare', mf.base],
      ] as const) {
        for (const shape of floorShapes(servers.tools).filter((s) => loads.has(s.shape))) {
          const started = performance.now()
          const input = shape.run(base)
          // The floor's Worker answers any method at once.
          const health = () => probe.post(`${base}/health`, {})
          const concurrent = await meanwhile(input, health, `the floor (${shape.input})`)
          await input
          const ms = performance.now() - started
          floor.push({ server, shape: shape.shape, input: shape.input, ms, concurrent })
          log(
            `the floor on ${server}, ${shape.input}: ${ms.toFixed(0)} ms; POST /health meanwhile ${concurrent.ms.toFixed(0)} ms`,
          )
        }
      }
      await mf.stop()
      await stop(dev)
    }

    const report: RowReport[] = []
    for (const row of selected) {
      // A row whose time under wrangler dev is the dev server's as much as ours runs there for the record, then on
      // Miniflare, where it is judged.
      const places: Server[] = row.devServer
        ? ['wrangler dev', 'Miniflare']
        : [row.on === 'frozen' ? 'wrangler dev, deployed clock' : row.on === 'miniflare' ? 'Miniflare' : 'wrangler dev']
      for (const server of places) {
        const frozen =
          server === 'wrangler dev, deployed clock' ? await start(join(root, 'bench', 'frozen-clock.ts')) : undefined
        if (server === 'Miniflare' && !miniflare) {
          miniflare = await startMiniflare(root, vars)
          miniflareUsualMs = await usualOn(miniflare.base)
          log(
            `Miniflare is ready on ${miniflare.base}; an ordinary render takes ${miniflareUsualMs.toFixed(1)} ms (median)`,
          )
        }
        const worker =
          frozen ??
          (server === 'Miniflare' && miniflare
            ? { ...dev, base: miniflare.base, workerdRss: () => (miniflare as MiniflareWorker).workerdRss() }
            : dev)
        const usual = server === 'Miniflare' ? miniflareUsualMs : usualMs
        const judged = server === 'Miniflare' || !row.devServer
        const started = performance.now()
        // The renders sent meanwhile find the store's cache as the usual ones did, warm: a cold one would also wait
        // for its Redis reads, which the usual time does not hold.
        if (row.concurrent !== false) await ordinary(worker.base)()
        const input = attempt(() => row.run(worker), row.waitMs)
        const concurrent =
          row.concurrent === false ? null : await meanwhile(input, ordinary(worker.base), `row ${row.row}`)
        const outcome: Outcome | string = await input
        const ms =
          typeof outcome === 'string' ? (row.waitMs ?? REQUEST_WAIT_MS) : (outcome.ms ?? performance.now() - started)
        const problems = typeof outcome === 'string' ? [outcome] : [...outcome.problems]
        if (row.timed !== false && typeof outcome !== 'string' && ms > BOUND_MS) {
          problems.push(`took ${ms.toFixed(0)} ms, more than ${BOUND_MS}`)
        }
        if (concurrent && concurrent.status !== 200)
          problems.push(`the render sent meanwhile answered ${concurrent.status}`)
        if (concurrent && concurrent.ms > usual + CONCURRENT_SLACK_MS) {
          problems.push(`the render sent meanwhile took ${concurrent.ms.toFixed(0)} ms, usually ${usual.toFixed(0)}`)
        }
        const status = typeof outcome === 'string' ? 0 : outcome.status
        const code = typeof outcome === 'string' ? 'timeout' : outcome.code
        const seen = concurrent ? `; render meanwhile ${concurrent.status} in ${concurrent.ms.toFixed(0)} ms` : ''
        const verdict = !judged ? 'for the record' : problems.length === 0 ? 'ok' : `FAILED: ${problems.join('; ')}`
        log(`row ${row.row} (${server}): ${status} ${code ?? ''} in ${ms.toFixed(0)} ms${seen}; ${verdict}`)
        report.push({
          row: row.row,
          input: row.input,
          server,
          judged,
          status,
          code,
          ms,
          shows: typeof outcome === 'string' ? '—' : outcome.shows,
          concurrent,
          problems,
        })
        if (frozen) await stop(frozen)
        // An isolate still frozen by the row, or a workerd that died of it, would stall or fail every later row.
        const health =
          typeof outcome === 'string' ? outcome : await attempt(() => fetch(`${dev.base}/health`).then((r) => r.status))
        if (health !== 200 && !frozen) {
          log(`row ${row.row} left the Worker unable to answer /health (${health}): starting it afresh`)
          await stop(dev)
          dev = await start()
        }
      }
    }
    process.stdout.write(
      JSON.stringify({
        boundMs: BOUND_MS,
        usualMs,
        miniflareUsualMs,
        slackMs: CONCURRENT_SLACK_MS,
        floor,
        rows: report,
      }) + '\n',
    )
  } finally {
    for (const dev of workers) await dev.stop()
    await miniflare?.stop()
    for (const state of states) rmSync(state, { recursive: true, force: true })
    await probe.stop()
    await servers.stop()
  }
}

if (!inThread()) run(main)
