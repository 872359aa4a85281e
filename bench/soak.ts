/**
 * Soak (issue 29): the Worker (Miniflare, one instance throughout) rendering
 * the stored one-variable prompt under a constant load of 80 % of its
 * measured capacity, in a database of --keys filler keys (bench/catalogue.ts),
 * for --minutes, with Redis gone for --down-s seconds in the middle. Redis is
 * taken away by the bridge, not by stopping redis-server: every Upstash
 * request's connection is closed unanswered (a Redis that is unreachable, as
 * when its server stopped), which keeps the million keys (redis-server runs
 * without persistence) and lets Redis come back at once, without reloading
 * them. Before the load: the scheduled handler runs until the record index is
 * ready (and so writes its KV snapshot, when the Worker has one), 20 renders
 * one after the other, then --capacity-s seconds of unlimited load at
 * --connections connections, whose mean rate is the capacity. During the load
 * the scheduled handler runs once a minute, as wrangler.toml's cron does.
 * Every answer's status and whether it carried `X-Prompt-Stale` are counted
 * per second, with workerd's resident memory (VmRSS, /proc). bench/run.mjs
 * bundles this file and runs it:
 *
 *   node soak.mjs --root DIR [--minutes 10] [--keys 1000000] [--down-s 60] [--connections 16] [--capacity-s 10]
 *
 * and it prints:
 *
 *   {"keys": 1000000, "durationS": 600, "connections": 16,
 *    "capacity": {"perSec": 900.5, "byStatus": {"200": 9005}, "errors": 0}, "ratePerSec": 720,
 *    "down": {"fromS": 270, "toS": 330}, "scheduled": {...}, "crons": [{"atS": 60, "outcome": "ok", "redisDown": false}],
 *    "seconds": [{"ok": 700, "stale": 0, "other": {"503": 20}, "rssMb": 180.2}],
 *    "totals": {"responses": 400000, "byStatus": {"200": 400000}, "stale": 40000, "staleWhileUp": 0, "errors": 0,
 *               "timeouts": 0}, "freshAfterS": 0.4, "samples": ["503 {...}"], "problems": ["..."]}
 *
 * where seconds[i] is the answers received in second i of the load (and the memory then), and freshAfterS is how
 * long after Redis came back the last answer with `X-Prompt-Stale` came (0 when none came after).
 */
import { parseArgs } from 'node:util'
import { Redis } from '@upstash/redis'
import autocannon from 'autocannon'
import { startRedis } from '../test/support/redis-server'
import type { RedisServer } from '../test/support/redis-server'
import { startBridge } from '../test/support/upstash-bridge'
import type { Bridge } from '../test/support/upstash-bridge'
import { catalogue, CRON, EXPECTED, PROMPT_ID, reconcile } from './catalogue'
import type { Scheduled } from './catalogue'
import { bundleWorker, startMiniflare } from './miniflare'
import type { MiniflareWorker } from './miniflare'
import { positive, run } from './stats'
import { describeLogged, log } from './worker'

const WARMUP_RENDERS = 20
/** The share of the measured capacity the load runs at. */
const LOAD_SHARE = 0.8
/** How often the scheduled handler runs during the load (wrangler.toml's cron: every minute). */
const CRON_EVERY_S = 60
/** Non-200 answers kept as samples. */
const SAMPLES = 5
/** Seconds an answer may take before autocannon counts it as a timeout. */
const TIMEOUT_S = 10

interface Second {
  ok: number
  stale: number
  other: Record<string, number>
  rssMb: number
}

interface Report {
  keys: number
  durationS: number
  connections: number
  /** The unlimited burst: its rate (the capacity), its answers by status, its errors and timeouts. */
  capacity: { perSec: number; byStatus: Record<string, number>; errors: number }
  ratePerSec: number
  down: { fromS: number; toS: number }
  scheduled: Scheduled
  crons: { atS: number; outcome: string; redisDown: boolean }[]
  seconds: Second[]
  totals: {
    responses: number
    byStatus: Record<string, number>
    stale: number
    staleWhileUp: number
    errors: number
    timeouts: number
  }
  freshAfterS: number
  samples: string[]
  problems: string[]
}

const RENDER = {
  method: 'POST',
  path: `/api/prompts/${PROMPT_ID}/render`,
  body: '{}',
  headers: { 'content-type': 'application/json' },
}

/** Renders one after the other: the last must be right (earlier ones may be cold: they are counted, by status). */
async function warmUp(base: string): Promise<void> {
  const statuses: Record<string, number> = {}
  let last = ''
  for (let i = 0; i < WARMUP_RENDERS; i++) {
    const res = await fetch(`${base}${RENDER.path}`, RENDER)
    const body = await res.text()
    const right = res.status === 200 && body.includes(JSON.stringify(EXPECTED))
    const kind = right ? '200' : `${res.status} ${body.slice(0, 200)}`
    statuses[kind] = (statuses[kind] ?? 0) + 1
    last = right ? '' : `${res.status} ${body.slice(0, 300)}`
  }
  log(`warm-up: ${JSON.stringify(statuses)}`)
  if (last !== '') {
    throw new Error(`warm-up: the Worker never rendered in ${WARMUP_RENDERS} renders; the last answered ${last}`)
  }
}

/** Renders per second at `connections` connections without a limit, for `seconds`, and its answers by status. */
async function capacity(base: string, connections: number, seconds: number): Promise<Report['capacity']> {
  const result = await autocannon({ url: base, connections, duration: seconds, requests: [RENDER] })
  const byStatus = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]))
  return { perSec: result.requests.average, byStatus, errors: result.errors + result.timeouts }
}

function header(headers: Record<string, string | string[]>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name)
}

async function soak(
  server: MiniflareWorker,
  o: { durationS: number; connections: number; ratePerSec: number; downS: number },
  db: { down(down: boolean): Promise<void> },
): Promise<Omit<Report, 'keys' | 'connections' | 'capacity' | 'scheduled' | 'problems'>> {
  const started = performance.now()
  const at = (): number => (performance.now() - started) / 1000
  const seconds: Second[] = []
  const second = (): Second => {
    const i = Math.min(Math.floor(at()), o.durationS + TIMEOUT_S)
    while (seconds.length <= i) seconds.push({ ok: 0, stale: 0, other: {}, rssMb: 0 })
    return seconds[i] as Second
  }
  const down = { fromS: (o.durationS - o.downS) / 2, toS: (o.durationS + o.downS) / 2 }
  let redisDown = false
  let lastStaleS = -1
  let staleWhileUp = 0
  const samples: string[] = []
  const crons: Report['crons'] = []

  const timers = [
    setTimeout(() => {
      redisDown = true
      log(`soak: Redis gone at ${at().toFixed(1)} s`)
      db.down(true).catch((e: unknown) => samples.push(`could not take Redis down: ${String(e)}`))
    }, down.fromS * 1000),
    setTimeout(() => {
      log(`soak: Redis back at ${at().toFixed(1)} s`)
      db.down(false).then(
        () => (redisDown = false),
        (e: unknown) => samples.push(`could not bring Redis back: ${String(e)}`),
      )
    }, down.toS * 1000),
  ]
  const sampler = setInterval(() => (second().rssMb = server.workerdRss() / 2 ** 20), 1000)
  const cron = setInterval(() => {
    const atS = at()
    const wasDown = redisDown
    server.scheduled(CRON).then(
      (outcome) => crons.push({ atS, outcome, redisDown: wasDown }),
      (e: unknown) => crons.push({ atS, outcome: `threw: ${String(e)}`, redisDown: wasDown }),
    )
  }, CRON_EVERY_S * 1000)

  const byStatus: Record<string, number> = {}
  let stale = 0
  let result
  try {
    result = await autocannon({
      url: server.base,
      connections: o.connections,
      duration: o.durationS,
      overallRate: o.ratePerSec,
      timeout: TIMEOUT_S,
      requests: [
        {
          ...RENDER,
          onResponse: (status, body, _context, headers) => {
            const s = second()
            byStatus[status] = (byStatus[status] ?? 0) + 1
            if (status !== 200) {
              s.other[status] = (s.other[status] ?? 0) + 1
              if (samples.length < SAMPLES) samples.push(`${at().toFixed(1)} s: ${status} ${body.slice(0, 300)}`)
              return
            }
            s.ok++
            if (header(headers, 'x-prompt-stale')) {
              s.stale++
              stale++
              lastStaleS = at()
              if (!redisDown) staleWhileUp++
            }
          },
        },
      ],
    })
  } finally {
    for (const timer of timers) clearTimeout(timer)
    clearInterval(sampler)
    clearInterval(cron)
    if (redisDown) await db.down(false)
  }
  return {
    durationS: o.durationS,
    ratePerSec: o.ratePerSec,
    down,
    crons,
    seconds,
    totals: {
      responses: Object.values(byStatus).reduce((a, b) => a + b, 0),
      byStatus,
      stale,
      staleWhileUp,
      errors: result.errors,
      timeouts: result.timeouts,
    },
    freshAfterS: Math.max(0, lastStaleS - down.toS),
    samples,
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      root: { type: 'string' },
      minutes: { type: 'string', default: '10' },
      keys: { type: 'string', default: '1000000' },
      'down-s': { type: 'string', default: '60' },
      connections: { type: 'string', default: '16' },
      'capacity-s': { type: 'string', default: '10' },
    },
  })
  if (!values.root) throw new Error('--root (the repository) is required')
  const root = values.root
  const durationS = Math.round(positive('minutes', values.minutes) * 60)
  const keys = Number(values.keys)
  if (!Number.isInteger(keys) || keys < 0) throw new Error(`--keys must be a whole number, not ${values.keys}`)
  const downS = positive('down-s', values['down-s'])
  if (downS >= durationS) throw new Error(`--down-s (${downS}) must be shorter than the soak (${durationS} s)`)
  const connections = positive('connections', values.connections)
  const capacityS = positive('capacity-s', values['capacity-s'])

  let redis: RedisServer | undefined
  let bridge: Bridge | undefined
  let server: MiniflareWorker | undefined
  const bundle = bundleWorker(root)
  try {
    redis = await startRedis()
    bridge = await startBridge({ redisPort: redis.port })
    const { token, db } = await catalogue(root, bridge.url, keys)
    const vars = { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: token }
    server = await startMiniflare(root, vars, { bundle })
    const scheduled = await reconcile(server, db, new Redis({ url: bridge.url, token, enableTelemetry: false }))
    server.phase('warm-up')
    await warmUp(server.base)
    log(`measuring capacity: ${capacityS} s of renders at ${connections} connections ...`)
    const burst = await capacity(server.base, connections, capacityS)
    const ratePerSec = Math.max(1, Math.floor(burst.perSec * LOAD_SHARE))
    log(
      `capacity ${burst.perSec.toFixed(0)} renders/s (${JSON.stringify(burst.byStatus)}); soaking at ${ratePerSec}/s for ${durationS} s, ` +
        `Redis gone for ${downS} s in the middle ...`,
    )
    server.phase('soak')
    const soaked = await soak(server, { durationS, connections, ratePerSec, downS }, db)
    const logged = server.problemLines()
    const report: Report = {
      keys,
      connections,
      capacity: burst,
      scheduled,
      ...soaked,
      problems: logged.length > 0 ? [describeLogged(logged, 'the Worker')] : [],
    }
    process.stdout.write(`${JSON.stringify(report)}\n`)
    await db.release()
  } finally {
    await server?.stop()
    bundle.remove()
    await bridge?.stop()
    await redis?.stop()
  }
}

run(main)
