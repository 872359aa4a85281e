/**
 * Issue 27, row 3: what one /mcp batch costs workerd in memory. Under
 * `wrangler dev` (bench/worker.ts) on a real Redis through the
 * Upstash-protocol bridge, each scenario gets a fresh wrangler dev, whose
 * workerd's VmRSS and VmHWM (its peak) are read from /proc before and after
 * one batch of 32 requests:
 *
 *   environs  32 resources/read of environ://big, a 4 MB subtree (400 values of 10 KB)
 *   tools     32 tools/call of a tool answering a 1 MB JSON object
 *   huge      32 resources/read of a 60 MB subtree (6,000 values of 10 KB), then GET /health
 *
 * Bundle with esbuild (dependencies left to node_modules), then run from the repository to measure:
 *
 *   npx esbuild bench/mcp-memory.ts --bundle --platform=node --format=esm --packages=external \
 *     --outfile=node_modules/.cache/mcp-memory.mjs && node node_modules/.cache/mcp-memory.mjs --root .
 *
 * `--only tools,huge` runs some scenarios; `--rounds N` sends each batch N times to the same workerd;
 * `--batch N` sends N requests a batch rather than 32.
 * It prints one JSON line per scenario and round: the answer's status and bytes, the time it took, workerd's
 * RSS and peak in MB before and after, and the status of a GET /health sent after it.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import { Redis } from '@upstash/redis'
import { restTool } from '../test/support/records'
import { startRedis } from '../test/support/redis-server'
import { startBridge } from '../test/support/upstash-bridge'
import { log, startWrangler, takeDatabase } from './worker'

const VALUE_BYTES = 10_000
const BATCH = 32
/** A value of about VALUE_BYTES: a JSON array of short strings, whose quotes JSON text escapes once more. */
const VALUE = JSON.stringify(Array.from({ length: VALUE_BYTES / 10 }, (_, i) => `v${String(i).padStart(6, '0')}`))
/** The tool's answer: a JSON object of about 1 MB, under TOOL_MAX_BYTES. */
const TOOL_ANSWER = JSON.stringify({
  items: Array.from({ length: 100_000 }, (_, i) => `i${String(i).padStart(6, '0')}`),
})

interface Scenario {
  name: string
  /** Values of the subtree `big`. */
  values: number
  batch: (i: number) => unknown
}

const SCENARIOS: Scenario[] = [
  { name: 'environs', values: 400, batch: (i) => read(i) },
  { name: 'tools', values: 0, batch: (i) => ({ ...rpc(i, 'tools/call'), params: { name: 'mem_big', arguments: {} } }) },
  { name: 'huge', values: 6000, batch: (i) => read(i) },
]

const rpc = (id: number, method: string) => ({ jsonrpc: '2.0', id, method })
const read = (id: number) => ({ ...rpc(id, 'resources/read'), params: { uri: 'environ://big' } })

/** The workerd processes below this one, and their VmRSS and VmHWM in MB. */
function workerdMemory(): { rss: number; peak: number } {
  const parents = new Map<number, number>()
  const names = new Map<number, string>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close))
      parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true
    return false
  }
  let rss = 0
  let peak = 0
  for (const [pid, name] of names) {
    if (!name.startsWith('workerd') || !below(pid)) continue
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    rss += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
    peak += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
  }
  return { rss: Math.round(rss), peak: Math.round(peak) }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      root: { type: 'string' },
      only: { type: 'string' },
      rounds: { type: 'string' },
      batch: { type: 'string' },
    },
  })
  const root = values.root ?? '.'
  const redis = await startRedis()
  const bridge = await startBridge({ redisPort: redis.port })
  const tool = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(TOOL_ANSWER))
  await new Promise<void>((resolve) => tool.listen(0, '127.0.0.1', resolve))
  const toolUrl = `http://127.0.0.1:${(tool.address() as AddressInfo).port}/big`
  try {
    for (const scenario of SCENARIOS.filter((s) => !values.only || values.only.split(',').includes(s.name))) {
      const token = await takeDatabase(bridge.url)
      const client = new Redis({ url: bridge.url, token, enableTelemetry: false, automaticDeserialization: false })
      await client.set('shenma:tools:mem:big', JSON.stringify(restTool('mem', 'big', toolUrl)))
      for (let at = 0; at < scenario.values; at += 500) {
        const records: Record<string, string> = {}
        for (let i = at; i < Math.min(scenario.values, at + 500); i++) records[`shenma:environs:big:k${i}`] = VALUE
        await client.mset(records)
      }
      const vars = { UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: token, RENDER_TIMEOUT_MS: '5000' }
      const dev = await startWrangler(root, vars)
      try {
        await (await fetch(`${dev.base}/health`)).text()
        await post(dev.base, rpc(0, 'ping'))
        const before = workerdMemory()
        for (let round = 1; round <= Number(values.rounds ?? 1); round++) {
          const started = performance.now()
          const batch = Array.from({ length: Number(values.batch ?? BATCH) }, (_, i) => scenario.batch(i + 1))
          const answer = await post(dev.base, batch).catch((e: unknown) => ({ status: 0, bytes: 0, error: String(e) }))
          const ms = Math.round(performance.now() - started)
          const after = workerdMemory()
          const health = await fetch(`${dev.base}/health`).then(
            async (r) => (await r.text(), r.status),
            () => 0,
          )
          const report = { scenario: scenario.name, round, root, ...answer, ms, before, after, nextHealth: health }
          process.stdout.write(`${JSON.stringify(report)}\n`)
        }
      } finally {
        await dev.stop()
      }
    }
  } finally {
    tool.close()
    await bridge.stop()
    await redis.stop()
  }
}

async function post(base: string, body: unknown): Promise<{ status: number; bytes: number; answered?: unknown }> {
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  let answered: unknown
  try {
    // How many requests got results, and which errors the others got.
    const answers = [JSON.parse(text)].flat() as { result?: unknown; error?: { data?: { code?: string } } }[]
    const tally: Record<string, number> = {}
    for (const a of answers) {
      const key = a.result !== undefined ? 'result' : (a.error?.data?.code ?? 'error')
      tally[key] = (tally[key] ?? 0) + 1
    }
    answered = tally
  } catch {
    answered = text.slice(0, 200)
  }
  return { status: res.status, bytes: Buffer.byteLength(text), answered }
}

main().catch((e: unknown) => {
  log(String((e as Error)?.stack ?? e))
  process.exit(1)
})
