/**
 * Loads the Worker, reading a real Redis through the Upstash-protocol bridge,
 * from this second process: requests per second and latency of a render
 * (stored, and the same prompt as a draft) against a trivial route of the
 * same app, the platform's floor, under two
 * hosts in turn: Miniflare (bench/miniflare.ts: workerd running the bundle
 * directly, so the Worker's own cost weighs most) and `wrangler dev` (a Node
 * proxy in front of workerd, as developers run it). bench/run.mjs bundles
 * this file with esbuild (dependencies left to node_modules) and runs it:
 *
 *   node --experimental-websocket endpoints.mjs --root DIR [--duration 10] [--connections 16] [--runs 3]
 *     [--warmup 3] [--hosts miniflare,wrangler] [--profile SECONDS] [--profile-dir DIR]
 *
 * It starts redis-server (test/support/redis-server.ts) and the bridge
 * (test/support/upstash-bridge.ts), takes a database from the bridge, and
 * writes the spec's example records into it with the real @upstash/redis
 * client: every file under examples/, as its text, under `shenma:` + its path
 * below examples/ without `.json`, `/` written as `:`. Then, per host, it
 * starts the Worker in DIR with the bridge's URL and token as its variables.
 * Warm-up: WARMUP_REQUESTS requests to each route one after the other (each
 * must answer 200, the render with the expected prompt, and /health must say
 * the store is Upstash), then --warmup seconds of untimed (but checked) load
 * on each route. Then --runs rounds, each loading the floor and then the
 * renders with autocannon for --duration seconds at --connections
 * connections. A run gives requests per second (autocannon's mean over its
 * one-second samples) and the p50 and p99 of the latencies of its 2xx
 * responses (every response timed by autocannon, kept to the microsecond
 * here); a route's figure is the median of its runs. A response that is not
 * 200, or a render that does not carry the expected prompt, is counted and
 * reported with samples and with when it came, beside when the Worker went to
 * Redis (the bridge's count of Upstash requests, sampled every TIMELINE_MS),
 * never dropped silently; so are the errors and warnings the host logs.
 *
 * With --profile, after its runs under Miniflare each route is loaded once
 * more for that many seconds while workerd's inspector records a CPU profile
 * of the Worker; the report lists the functions with the most self time
 * (bench/profile.ts), and --profile-dir keeps the .cpuprofile files. It
 * prints, on stdout:
 *
 *   {"connections": 16, "durationS": 10, "warmupS": 3, "runs": 3, "records": 8, "profileS": 5,
 *    "hosts": [{"name": "miniflare", "version": "4.x",
 *               "routes": [{"name": "floor", "method": "GET", "path": "/health",
 *                           "runs": [{"requestsPerSec": 1234.5, "p50Ms": 9.1, "p99Ms": 20.3, "responses": 12345,
 *                                     "statusCodes": {"200": 12345}, "wrong": 0, "errors": 0, "timeouts": 0,
 *                                     "upstashRequests": 0}],
 *                           "median": {"requestsPerSec": 1234.5, "p50Ms": 9.1, "p99Ms": 20.3}}],
 *               "profiles": [{"route": "GET /health", "responses": 9000, "busyMs": 2100.5,
 *                             "top": [{"name": "emit (lib/log.ts)", "selfMs": 80.1, "totalMs": 300.2}]}]}],
 *    "problems": ["..."]}
 *
 * The hosts, the bridge and redis-server are stopped at the end, also when
 * something failed (and wrangler's group too if this process dies or is
 * interrupted). A failure to start is reported on stderr with a non-zero exit
 * status.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import type { Result as CannonResult } from 'autocannon'
import { startRedis } from '../test/support/redis-server'
import type { RedisServer } from '../test/support/redis-server'
import { startBridge } from '../test/support/upstash-bridge'
import type { Bridge } from '../test/support/upstash-bridge'
import quickReview from '../examples/templates/evaluator/quick_review.json'
import { startMiniflare } from './miniflare'
import { moduleLines, summarize } from './profile'
import type { ProfileEntry } from './profile'
import { median, run } from './stats'
import { BridgeStats, describeLogged, log, spells, startWrangler, takeDatabase, writeExamples } from './worker'
import type { Logged } from './worker'

const WARMUP_REQUESTS = 20
/** Samples kept of each kind of wrong answer. */
const SAMPLES = 3
/** How often the bridge's count of Upstash requests is sampled during a run, in ms. */
const TIMELINE_MS = 100

const PROMPT_ID = 'evaluator.quick_review'
const RENDER_BODY = JSON.stringify({ args: { code: 'x := 1' } })
/** What examples/templates/evaluator/quick_review.json renders to with the example environs and the body above. */
const EXPECTED_PROMPT = 'Review this go code (frameworks: gin, gorm, gin-swagger) in one paragraph:\nx := 1'

/** The same prompt as a draft (POST /api/render): parsed for each request, where the stored one is parsed once. */
const DRAFT_BODY = JSON.stringify({
  prompt: quickReview.prompt,
  parameters: quickReview.parameters,
  args: { code: 'x := 1' },
})

interface Route {
  name: 'floor' | 'render' | 'draft'
  method: 'GET' | 'POST'
  path: string
  body?: string
  /** Whether a 200 answer is the right one. */
  check: (body: string) => boolean
}

const ROUTES: Route[] = [
  { name: 'floor', method: 'GET', path: '/health', check: (body) => body.includes('"status":"success"') },
  {
    name: 'render',
    method: 'POST',
    path: `/api/prompts/${PROMPT_ID}/render`,
    body: RENDER_BODY,
    check: (body) => body.includes(JSON.stringify(EXPECTED_PROMPT)) && !body.includes('"warnings"'),
  },
  {
    name: 'draft',
    method: 'POST',
    path: '/api/render',
    body: DRAFT_BODY,
    check: (body) => body.includes(JSON.stringify(EXPECTED_PROMPT)) && !body.includes('"warnings"'),
  },
]

interface RunResult {
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  responses: number
  statusCodes: Record<string, number>
  /** 200 answers whose body was not the expected one. */
  wrong: number
  errors: number
  timeouts: number
  /** Upstash requests the Worker made during the run: with warm caches, about one per key per 5 s. */
  upstashRequests: number
}

interface Figures {
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
}

interface RouteReport {
  name: string
  method: string
  path: string
  runs: RunResult[]
  median: Figures
}

/** Where a profile's samples fell while one route was under load (bench/profile.ts). */
interface ProfileReport {
  route: string
  /** Answers during the profile, to put its time per request. */
  responses: number
  busyMs: number
  top: ProfileEntry[]
}

/** The figures of one way of running the Worker. */
interface HostReport {
  name: Host
  version: string
  routes: RouteReport[]
  profiles: ProfileReport[]
}

interface Report {
  connections: number
  durationS: number
  warmupS: number
  runs: number
  records: number
  profileS: number
  hosts: HostReport[]
  problems: string[]
}

type Host = 'miniflare' | 'wrangler'
const HOSTS: readonly Host[] = ['miniflare', 'wrangler']

/** A running Worker, whichever way it runs. */
interface Server {
  base: string
  version: string
  phase(name: string): void
  problemLines(): Logged[]
  stop(): Promise<void>
}

/** Functions listed per profile. */
const PROFILE_TOP = 15

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      root: { type: 'string' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '16' },
      runs: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '3' },
      hosts: { type: 'string', default: HOSTS.join(',') },
      profile: { type: 'string', default: '0' },
      'profile-dir': { type: 'string' },
    },
  })
  if (!values.root) throw new Error('--root (the repository) is required')
  const root = values.root
  const durationS = positiveInt('duration', values.duration)
  const connections = positiveInt('connections', values.connections)
  const runs = positiveInt('runs', values.runs)
  const warmupS = positiveInt('warmup', values.warmup)
  const profileS = values.profile === '0' ? 0 : positiveInt('profile', values.profile)
  const hosts = values.hosts.split(',') as Host[]
  for (const host of hosts) if (!HOSTS.includes(host)) throw new Error(`--hosts: no host ${host} (${HOSTS.join(', ')})`)

  let redis: RedisServer | undefined
  let bridge: Bridge | undefined
  try {
    redis = await startRedis()
    bridge = await startBridge({ redisPort: redis.port })
    const token = await takeDatabase(bridge.url)
    const records = await writeExamples(root, bridge.url, token)
    const stats = new BridgeStats(bridge.url, token)
    const vars = { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: token }
    const report: Report = { connections, durationS, warmupS, runs, records, profileS, hosts: [], problems: [] }
    for (const host of hosts) {
      const server: Server = host === 'miniflare' ? await startMiniflare(root, vars) : await startWrangler(root, vars)
      try {
        log(`${host} is ready on ${server.base}`)
        const measured = await measure(server, host, { durationS, connections, runs, warmupS }, stats, report.problems)
        if (host === 'miniflare' && profileS > 0) {
          measured.profiles = await profileRoutes(
            root,
            vars,
            { profileS, connections, dir: values['profile-dir'] },
            stats,
          )
        }
        const logged = server.problemLines()
        if (logged.length > 0) report.problems.push(describeLogged(logged, host))
        report.hosts.push(measured)
      } finally {
        await server.stop()
      }
    }
    process.stdout.write(JSON.stringify(report) + '\n')
  } finally {
    await bridge?.stop()
    await redis?.stop()
  }
}

/**
 * A CPU profile of each route under load, in a Miniflare of its own: the
 * inspector it needs slows what is measured (see bench/miniflare.ts).
 */
async function profileRoutes(
  root: string,
  vars: Record<string, string>,
  o: { profileS: number; connections: number; dir: string | undefined },
  stats: BridgeStats,
): Promise<ProfileReport[]> {
  const server = await startMiniflare(root, vars, { inspector: true })
  try {
    await warmUp(server.base, stats)
    const fileOf = moduleLines(server.bundle)
    const reports: ProfileReport[] = []
    for (const route of ROUTES) {
      log(`miniflare: profiling ${route.method} ${route.path} for ${o.profileS} s at ${o.connections} connections ...`)
      let responses = 0
      const profile = await server.profile(async () => {
        responses = (await load(server.base, route, o.profileS, o.connections, stats)).run.responses
      })
      if (o.dir !== undefined) {
        const file = join(o.dir, `miniflare-${route.name}.cpuprofile`)
        mkdirSync(o.dir, { recursive: true })
        writeFileSync(file, JSON.stringify(profile))
        log(`wrote ${file} (Chrome DevTools, Performance: load profile)`)
      }
      reports.push({ route: `${route.method} ${route.path}`, responses, ...summarize(profile, fileOf, PROFILE_TOP) })
    }
    return reports
  } finally {
    await server.stop()
  }
}

/** Warm-up, then `runs` rounds loading each route in turn. */
async function measure(
  server: Server,
  host: Host,
  o: { durationS: number; connections: number; runs: number; warmupS: number },
  stats: BridgeStats,
  problems: string[],
): Promise<HostReport> {
  const report: HostReport = {
    name: host,
    version: server.version,
    routes: ROUTES.map((r) => ({ name: r.name, method: r.method, path: r.path, runs: [], median: zero() })),
    profiles: [],
  }
  server.phase('the warm-up requests')
  await warmUp(server.base, stats)
  for (const route of ROUTES) {
    const name = `${host}: the warm-up load of ${route.method} ${route.path}`
    log(`${name} for ${o.warmupS} s at ${o.connections} connections ...`)
    server.phase(name)
    const result = await load(server.base, route, o.warmupS, o.connections, stats)
    server.phase(`after ${name}`)
    problems.push(...result.problems.map((p) => `${name}: ${p}`))
  }
  for (let i = 1; i <= o.runs; i++) {
    for (const [k, route] of ROUTES.entries()) {
      log(
        `${host}: run ${i}/${o.runs}: ${route.method} ${route.path} for ${o.durationS} s at ${o.connections} connections ...`,
      )
      await stats.reset()
      server.phase(`run ${i} of ${route.method} ${route.path}`)
      const result = await load(server.base, route, o.durationS, o.connections, stats)
      server.phase(`after run ${i} of ${route.method} ${route.path}`)
      result.run.upstashRequests = await stats.requests()
      ;(report.routes[k] as RouteReport).runs.push(result.run)
      problems.push(...result.problems.map((p) => `${host}, run ${i}, ${route.method} ${route.path}: ${p}`))
    }
  }
  for (const route of report.routes) {
    route.median = {
      requestsPerSec: median(route.runs.map((r) => r.requestsPerSec)),
      p50Ms: median(route.runs.map((r) => r.p50Ms)),
      p99Ms: median(route.runs.map((r) => r.p99Ms)),
    }
  }
  return report
}

function zero(): Figures {
  return { requestsPerSec: 0, p50Ms: 0, p99Ms: 0 }
}

// ---------------------------------------------------------------- load

/** Requests one after the other: every answer must be right, and the Worker must read Redis. */
async function warmUp(base: string, stats: BridgeStats): Promise<void> {
  const health = await fetch(`${base}/health`)
  const healthBody = await health.text()
  if (health.status !== 200 || !healthBody.includes('"store":"upstash"')) {
    throw new Error(`GET /health answered ${health.status} ${healthBody}, not a 200 naming the upstash store`)
  }
  for (const route of ROUTES) {
    for (let i = 0; i < WARMUP_REQUESTS; i++) {
      const res = await fetch(`${base}${route.path}`, {
        method: route.method,
        ...(route.body === undefined ? {} : { body: route.body, headers: { 'content-type': 'application/json' } }),
      })
      const body = await res.text()
      if (res.status !== 200 || !route.check(body)) {
        throw new Error(`warm-up: ${route.method} ${route.path} answered ${res.status} ${body.slice(0, 500)}`)
      }
    }
  }
  const requests = await stats.requests()
  if (requests === 0) throw new Error('warm-up: the Worker made no Upstash request; it is not reading Redis')
  log(`warmed up: ${WARMUP_REQUESTS} requests per route, all right; the Worker made ${requests} Upstash requests`)
}

async function load(
  base: string,
  route: Route,
  durationS: number,
  connections: number,
  stats: BridgeStats,
): Promise<{ run: RunResult; problems: string[] }> {
  const started = performance.now()
  const seconds = (): number => (performance.now() - started) / 1000
  // When the answers that were not 200 came, and when the Worker went to Redis: to tell whether they go together.
  const failedAt: number[] = []
  const upstash: { at: number; requests: number }[] = []
  const sampler = setInterval(() => {
    const at = seconds()
    stats.requests().then(
      (requests) => upstash.push({ at, requests }),
      () => undefined,
    )
  }, TIMELINE_MS)
  const latencies: number[] = []
  let wrong = 0
  const samples = new Map<string, string[]>()
  const keep = (kind: string, body: string): void => {
    const kept = samples.get(kind) ?? []
    if (kept.length < SAMPLES) samples.set(kind, [...kept, body])
  }
  const instance = autocannon({
    url: base,
    connections,
    duration: durationS,
    requests: [
      {
        method: route.method,
        path: route.path,
        ...(route.body === undefined ? {} : { body: route.body, headers: { 'content-type': 'application/json' } }),
        onResponse: (status: number, body: string) => {
          if (status !== 200) {
            failedAt.push(seconds())
            keep(`status ${status}`, body)
          } else if (!route.check(body)) {
            wrong++
            keep('wrong 200', body)
          }
        },
      },
    ],
  })
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime)
  })
  let result: CannonResult
  try {
    result = await instance
  } finally {
    clearInterval(sampler)
  }
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]))
  const responses = Object.values(statusCodes).reduce((a, b) => a + b, 0)
  const problems: string[] = []
  const non200 = Object.entries(statusCodes).filter(([code]) => code !== '200')
  if (non200.length > 0) {
    problems.push(`${non200.map(([code, n]) => `${n} × ${code}`).join(', ')} of ${responses} responses`)
  }
  if (failedAt.length > 0) {
    problems.push(
      `the answers that were not 200 came at ${spells(failedAt)} s into the run; the Worker's Upstash requests, ` +
        `at ${bursts(upstash)} s`,
    )
  }
  if (wrong > 0) problems.push(`${wrong} of the 200 answers did not carry the expected body`)
  if (result.errors > 0) problems.push(`${result.errors} connection errors (${result.timeouts} of them timeouts)`)
  for (const [kind, bodies] of samples) {
    for (const body of bodies) problems.push(`sample answer (${kind}): ${body.slice(0, 500)}`)
  }
  latencies.sort((a, b) => a - b)
  return {
    run: {
      requestsPerSec: result.requests.average,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      responses,
      statusCodes,
      wrong,
      errors: result.errors,
      timeouts: result.timeouts,
      upstashRequests: 0,
    },
    problems,
  }
}

/** The Upstash requests of a run, from samples of the bridge's count, as spells: "0.1–0.4 (72), 5.2 (70)". */
function bursts(samples: readonly { at: number; requests: number }[]): string {
  const sorted = [...samples].sort((a, b) => a.at - b.at)
  const times: number[] = []
  for (let i = 1; i < sorted.length; i++) {
    const [before, now] = [sorted[i - 1], sorted[i]] as [{ requests: number }, { at: number; requests: number }]
    for (let k = before.requests; k < now.requests; k++) times.push(now.at)
  }
  return times.length === 0 ? 'none' : spells(times)
}

/** The nearest-rank percentile of sorted values (0 when there are none). */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[rank - 1] as number
}

function positiveInt(flag: string, text: string | undefined): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${flag} must be a positive integer, not ${text}`)
  return n
}

run(main)
