/**
 * Keyspace: what a fresh Worker's first render costs in a database of many
 * keys (issue 29). Per count of filler keys (half another application's,
 * `otherapp:session:<n>`, half `shenma:environs:chat:history:<n>`, written by
 * the bridge in Redis itself), a database of its own holds the example
 * records, a stored one-variable prompt (`bench.one`) and the filler. If the
 * Worker exports a `scheduled` handler, it runs (in a Miniflare of its own)
 * until the record index says it is ready (`ready` in shenma:index:state),
 * and what those runs cost is reported. Then, per added latency of every
 * Redis request (the bridge's), `--runs` times: a fresh Miniflare (a fresh
 * workerd: a cold isolate and a cold Cache API) on one bundle of the Worker,
 * and its first request, `POST /api/prompts/bench.one/render`: its time, the
 * Upstash requests it made and their commands by name (with RENDER_TIMEOUT_MS
 * raised out of the way, so that a slow render is timed, not cut off). The database is
 * flushed after its count. bench/run.mjs bundles this file (dependencies left
 * to node_modules) and runs it:
 *
 *   node keyspace.mjs --root DIR [--counts 0,100000,1000000] [--latencies 0,20] [--runs 3]
 *
 * and it prints:
 *
 *   {"runs": 3, "records": 9,
 *    "counts": [{"keys": 0, "scheduled": {"handler": "ok", "runs": 2, "requests": 4, "commands": {"SCAN": 1}, "ms": 20},
 *                "cells": [{"latencyMs": 0, "renders": [{"ms": 101.2, "requests": 5, "commands": {"MGET": 3}}],
 *                           "medianMs": 101.2, "requests": 5, "commands": {"MGET": 3}}]}],
 *    "problems": ["..."]}
 *
 * where a cell's requests and commands are its runs' largest. `scheduled.handler` is `none` when the Worker has no
 * scheduled handler (then runs is 0).
 */
import { parseArgs } from 'node:util'
import { Redis } from '@upstash/redis'
import { startRedis } from '../test/support/redis-server'
import type { RedisServer } from '../test/support/redis-server'
import { startBridge } from '../test/support/upstash-bridge'
import type { Bridge } from '../test/support/upstash-bridge'
import { catalogue, EXPECTED, PROMPT_ID, reconcile } from './catalogue'
import type { Scheduled } from './catalogue'
import { bundleWorker, startMiniflare } from './miniflare'
import type { Bundle } from './miniflare'
import { median, run } from './stats'
import { describeLogged, log } from './worker'
import type { BridgeStats } from './worker'

/** The render's deadline here (500 ms by default), far past what a render of the largest count takes. */
const RENDER_DEADLINE_MS = 60_000

interface Render {
  ms: number
  /** The answer's status; 0 when it was a 200 without the expected prompt. */
  status: number
  requests: number
  commands: Record<string, number>
}

interface Cell {
  latencyMs: number
  renders: Render[]
  medianMs: number
  requests: number
  commands: Record<string, number>
}

interface CountReport {
  keys: number
  scheduled: Scheduled
  cells: Cell[]
}

/** The first request of a fresh Worker: the render of the one-variable prompt. */
async function firstRender(
  root: string,
  bundle: Bundle,
  vars: Record<string, string>,
  db: BridgeStats,
  problems: string[],
): Promise<Render> {
  const server = await startMiniflare(root, vars, { bundle })
  try {
    await db.reset()
    const started = performance.now()
    const res = await fetch(`${server.base}/api/prompts/${PROMPT_ID}/render`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    })
    const body = await res.text()
    const ms = performance.now() - started
    const right = res.status === 200 && body.includes(JSON.stringify(EXPECTED))
    if (!right) problems.push(`a first render answered ${res.status} ${body.slice(0, 300)}, not a 200 with ${EXPECTED}`)
    const stats = await db.stats()
    const logged = server.problemLines()
    if (logged.length > 0) problems.push(describeLogged(logged, 'the fresh Worker'))
    return {
      ms,
      status: right || res.status !== 200 ? res.status : 0,
      requests: stats.requests,
      commands: stats.byCommand,
    }
  } finally {
    await server.stop()
  }
}

/** Per command, its largest count among `all`. */
function largest(all: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const counts of all) for (const [name, n] of Object.entries(counts)) out[name] = Math.max(out[name] ?? 0, n)
  return out
}

function numbers(flag: string, text: string): number[] {
  return text.split(',').map((part) => {
    const n = Number(part)
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${flag}: ${part} is not a whole number`)
    return n
  })
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      root: { type: 'string' },
      counts: { type: 'string', default: '0,100000,1000000' },
      latencies: { type: 'string', default: '0,20' },
      runs: { type: 'string', default: '3' },
    },
  })
  if (!values.root) throw new Error('--root (the repository) is required')
  const root = values.root
  const counts = numbers('counts', values.counts)
  const latencies = numbers('latencies', values.latencies)
  const [runs = 0] = numbers('runs', values.runs)
  if (runs < 1) throw new Error('--runs must be at least 1')

  let redis: RedisServer | undefined
  let bridge: Bridge | undefined
  const bundle = bundleWorker(root)
  try {
    redis = await startRedis()
    bridge = await startBridge({ redisPort: redis.port })
    const problems: string[] = []
    const reports: CountReport[] = []
    let records = 0
    for (const keys of counts) {
      const made = await catalogue(root, bridge.url, keys)
      records = made.records
      const { token, db } = made
      try {
        // The render's deadline out of the way: the figure is what the render costs, not when it gives up.
        const vars = {
          UPSTASH_REDIS_REST_URL: bridge.url,
          UPSTASH_REDIS_REST_TOKEN: token,
          RENDER_TIMEOUT_MS: String(RENDER_DEADLINE_MS),
        }
        const client = new Redis({ url: bridge.url, token, enableTelemetry: false })
        const scheduler = await startMiniflare(root, vars, { bundle })
        const scheduled = await reconcile(scheduler, db, client).finally(() => scheduler.stop())
        log(
          scheduled.handler === 'none'
            ? 'the Worker has no scheduled handler'
            : `${scheduled.runs} runs of the scheduled handler made the index ready: ${scheduled.requests} requests`,
        )
        const cells: Cell[] = []
        for (const latencyMs of latencies) {
          await db.latency(latencyMs)
          const renders: Render[] = []
          for (let i = 0; i < runs; i++) renders.push(await firstRender(root, bundle, vars, db, problems))
          const cell = {
            latencyMs,
            renders,
            medianMs: median(renders.map((r) => r.ms)),
            requests: Math.max(...renders.map((r) => r.requests)),
            commands: largest(renders.map((r) => r.commands)),
          }
          log(
            `${keys.toLocaleString('en-US')} keys, +${latencyMs} ms: first render ${cell.medianMs.toFixed(0)} ms ` +
              `(median of ${runs}), ${cell.requests} requests ${JSON.stringify(cell.commands)}`,
          )
          cells.push(cell)
        }
        reports.push({ keys, scheduled, cells })
      } finally {
        await db.release()
      }
    }
    process.stdout.write(`${JSON.stringify({ runs, records, counts: reports, problems })}\n`)
  } finally {
    bundle.remove()
    await bridge?.stop()
    await redis?.stop()
  }
}

run(main)
