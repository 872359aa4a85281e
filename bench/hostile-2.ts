/**
 * Sends the Worker the hostile inputs of issue 27's table under `wrangler
 * dev` on a real Redis, with real tool, MCP, drip (test/support/drip-server.ts)
 * and LLM servers, the settings of bench/hostile-common.ts, and ADMIN_TOKEN
 * set for the writes. bench/run.mjs bundles this file and runs it:
 *
 *   node hostile-2.mjs --root DIR [--rows 3,5]
 *
 * (--rows: only those rows of the table.) *
 * First the ordinary render's usual time: the median of USUAL_RENDERS of it,
 * one after the other. Then, for each row, its input (bench/hostile-2-rows.ts)
 * and, CONCURRENT_AFTER_MS after it was sent and then every CONCURRENT_EVERY_MS
 * while it is in flight, an ordinary render, each of which must answer 200
 * within its usual time plus CONCURRENT_SLACK_MS (the worst is reported). A row passes when
 * that holds, its input answered within BOUND_MS (rows of many requests, 6 and
 * 9, judge their counts only) and what the row checks holds. A row whose
 * request did not answer within REQUEST_WAIT_MS is recorded as a timeout, and
 * the Worker, whose isolate may still be frozen, is started afresh. Row 4 runs
 * on a Worker whose clock moves as a deployed one's (bench/frozen-clock.ts).
 * It prints, on stdout:
 *
 *   {"boundMs": 700, "usualMs": 9.1, "slackMs": 200,
 *    "rows": [{"row": 1, "input": "...", "status": 200, "code": null, "ms": 12.3, "shows": "...",
 *              "concurrent": {"status": 200, "ms": 10.2}, "problems": []}]}
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Redis } from '@upstash/redis'
import { startDripServer } from '../test/support/drip-server'
import { startMiniflare } from './miniflare'
import type { MiniflareWorker } from './miniflare'
import type { DripServer } from '../test/support/drip-server'
import { startLlmServer } from '../test/support/llm-server'
import type { LlmServer } from '../test/support/llm-server'
import { startRedis } from '../test/support/redis-server'
import type { RedisServer } from '../test/support/redis-server'
import { startToolServer } from '../test/support/tool-server'
import type { ToolServer } from '../test/support/tool-server'
import { startBridge } from '../test/support/upstash-bridge'
import type { Bridge } from '../test/support/upstash-bridge'
import {
  BOUND_MS,
  DEADLINE_MS,
  ORDINARY,
  REQUEST_WAIT_MS,
  TOOL_TIMEOUT_MS,
  attempt,
  post,
  readBounded,
  timeout,
} from './hostile-common'
import { ADMIN_TOKEN, LLM_KEY, rows, writeRecords } from './hostile-2-rows'
import type { Outcome, Servers } from './hostile-2-rows'
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

interface RowReport {
  row: number
  input: string
  status: number
  code: string | null
  ms: number
  shows: string
  /** The ordinary render sent meanwhile; null for rows that send none (row 7's renders are ordinary ones). */
  concurrent: { status: number; ms: number } | null
  problems: string[]
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { root: { type: 'string' }, rows: { type: 'string' } } })
  if (!values.root) throw new Error('--root (the repository) is required')
  const root = values.root
  const only = values.rows ? new Set(values.rows.split(',').map(Number)) : undefined

  let redisServer: RedisServer | undefined
  let bridge: Bridge | undefined
  let tools: ToolServer | undefined
  let drip: DripServer | undefined
  let llm: LlmServer | undefined
  const workers = new Set<WranglerDev>()
  let miniflare: MiniflareWorker | undefined
  const states: string[] = []
  try {
    redisServer = await startRedis()
    bridge = await startBridge({ redisPort: redisServer.port })
    tools = await startToolServer()
    drip = await startDripServer()
    llm = await startLlmServer()
    const token = await takeDatabase(bridge.url)
    await writeExamples(root, bridge.url, token)
    const redis = new Redis({ url: bridge.url, token, enableTelemetry: false, automaticDeserialization: false })
    const servers: Servers = { tools: tools.url, drip: drip.url, llm: llm.origin, redis }
    await writeRecords(servers)

    const vars = {
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: token,
      RENDER_TIMEOUT_MS: String(DEADLINE_MS),
      TOOL_TIMEOUT_MS: String(TOOL_TIMEOUT_MS),
      TOOL_ALLOWED_HOSTS: `${new URL(tools.url).host},${new URL(drip.url).host}`,
      LLM_BASE_URL: llm.url,
      LLM_API_KEY: LLM_KEY,
      LLM_ROUTES: JSON.stringify({ drip: { baseURL: `${drip.url}/v1`, apiKeyVar: 'LLM_API_KEY' } }),
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
    let dev = await start()
    const ordinary = async (base: string): Promise<{ status: number; ms: number }> => {
      const started = performance.now()
      const sent = await attempt(async () => {
        const response = await post(base, ORDINARY.path, ORDINARY.body, new Headers())
        await readBounded(response)
        return response.status
      })
      return { status: typeof sent === 'number' ? sent : 0, ms: performance.now() - started }
    }
    const usual: number[] = []
    for (let i = 0; i < USUAL_RENDERS; i++) {
      const render = await ordinary(dev.base)
      if (render.status !== 200) throw new Error(`an ordinary render answered ${render.status} before any row`)
      usual.push(render.ms)
    }
    const usualMs = median(usual)
    log(`wrangler dev is ready on ${dev.base}; an ordinary render takes ${usualMs.toFixed(1)} ms (median)`)

    const report: RowReport[] = []
    for (const row of rows(servers, { start, stop }).filter((r) => !only || only.has(r.row))) {
      const frozen = row.on === 'frozen' ? await start(join(root, 'bench', 'frozen-clock.ts')) : undefined
      if (row.on === 'miniflare') miniflare ??= await startMiniflare(root, vars)
      // A Miniflare row is sent to its base; it measures no memory (row 3's RSS is wrangler dev's workerd).
      const worker = frozen ?? (miniflare && row.on === 'miniflare' ? { ...dev, base: miniflare.base } : dev)
      const started = performance.now()
      const input = attempt(() => row.run(worker), row.waitMs)
      let answered = false
      void input.then(() => (answered = true))
      let concurrent: { status: number; ms: number } | null = null
      if (row.concurrent !== false) {
        // One render CONCURRENT_AFTER_MS after the input, then one every CONCURRENT_EVERY_MS while it is in flight:
        // whenever the input holds the isolate, a render meets it. The worst of them is the row's.
        const renders: Promise<{ status: number; ms: number }>[] = []
        await Promise.race([input, timeout(CONCURRENT_AFTER_MS)])
        if (answered) log(`row ${row.row}: its input answered before the ordinary render was sent`)
        do {
          renders.push(ordinary(worker.base))
          await Promise.race([input, timeout(CONCURRENT_EVERY_MS)])
        } while (!answered && renders.length < CONCURRENT_RENDERS)
        const done = await Promise.all(renders)
        concurrent = done.reduce((worst, r) =>
          (r.status !== 200 && worst.status === 200) || (r.status === worst.status && r.ms > worst.ms) ? r : worst,
        )
      }
      const outcome: Outcome | string = await input
      const ms =
        typeof outcome === 'string' ? (row.waitMs ?? REQUEST_WAIT_MS) : (outcome.ms ?? performance.now() - started)
      const problems = typeof outcome === 'string' ? [outcome] : [...outcome.problems]
      if (row.timed !== false && typeof outcome !== 'string' && ms > BOUND_MS) {
        problems.push(`took ${ms.toFixed(0)} ms, more than ${BOUND_MS}`)
      }
      if (concurrent && concurrent.status !== 200)
        problems.push(`the render sent meanwhile answered ${concurrent.status}`)
      if (concurrent && concurrent.ms > usualMs + CONCURRENT_SLACK_MS) {
        problems.push(`the render sent meanwhile took ${concurrent.ms.toFixed(0)} ms, usually ${usualMs.toFixed(0)}`)
      }
      const status = typeof outcome === 'string' ? 0 : outcome.status
      const code = typeof outcome === 'string' ? 'timeout' : outcome.code
      const meanwhile = concurrent ? `; render meanwhile ${concurrent.status} in ${concurrent.ms.toFixed(0)} ms` : ''
      const verdict = problems.length === 0 ? 'ok' : `FAILED: ${problems.join('; ')}`
      log(`row ${row.row}: ${status} ${code ?? ''} in ${ms.toFixed(0)} ms${meanwhile}; ${verdict}`)
      report.push({
        row: row.row,
        input: row.input,
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
    process.stdout.write(
      JSON.stringify({ boundMs: BOUND_MS, usualMs, slackMs: CONCURRENT_SLACK_MS, rows: report }) + '\n',
    )
  } finally {
    for (const dev of workers) await dev.stop()
    await miniflare?.stop()
    for (const state of states) rmSync(state, { recursive: true, force: true })
    await llm?.stop()
    await drip?.stop()
    await tools?.stop()
    await bridge?.stop()
    await redisServer?.stop()
  }
}

run(main)
