/**
 * What the keyspace and soak sections (bench/keyspace.ts, bench/soak.ts) share: a database of the bridge holding a
 * small catalogue and many filler keys, and the Worker's scheduled handler run until the record index is ready.
 */
import { Redis } from '@upstash/redis'
import type { MiniflareWorker } from './miniflare'
import { BridgeStats, describeLogged, log, takeDatabase, writeExamples } from './worker'

/** The stored one-variable prompt, and what it renders to with the example environs. */
export const PROMPT_KEY = 'shenma:templates:bench:one'
export const PROMPT_ID = 'bench.one'
export const PROMPT = { prompt: 'Answer in {{.vscode.programming_language}}.' }
export const EXPECTED = 'Answer in go.'

/** The cron the scheduled handler is run with (wrangler.toml's), and how many runs may make the index ready. */
export const CRON = '* * * * *'
const MAX_SCHEDULED_RUNS = 500
const INDEX_STATE = 'shenma:index:state'

export interface Scheduled {
  handler: 'ok' | 'none'
  runs: number
  requests: number
  commands: Record<string, number>
  ms: number
}

/** A database of the bridge holding the example records, the one-variable prompt, and `keys` filler keys. */
export async function catalogue(
  root: string,
  bridgeUrl: string,
  keys: number,
): Promise<{ token: string; db: BridgeStats; records: number }> {
  const token = await takeDatabase(bridgeUrl)
  const examples = await writeExamples(root, bridgeUrl, token)
  await new Redis({ url: bridgeUrl, token, enableTelemetry: false }).set(PROMPT_KEY, PROMPT)
  const db = new BridgeStats(bridgeUrl, token)
  const started = performance.now()
  await db.fill(keys)
  log(`filled the database with ${keys.toLocaleString('en-US')} keys in ${(performance.now() - started).toFixed(0)} ms`)
  return { token, db, records: examples + 1 }
}

/** Runs the Worker's scheduled handler until the record index is ready; `none` when the Worker has no such handler. */
export async function reconcile(server: MiniflareWorker, db: BridgeStats, redis: Redis): Promise<Scheduled> {
  const total: Scheduled = { handler: 'ok', runs: 0, requests: 0, commands: {}, ms: 0 }
  for (;;) {
    await db.reset()
    const started = performance.now()
    const outcome = await server.scheduled(CRON)
    total.ms += performance.now() - started
    if (outcome === 'none') return { ...total, handler: 'none' }
    if (outcome === 'failed') throw new Error(`the scheduled handler failed:\n${describeLogged(server.problemLines())}`)
    total.runs++
    const stats = await db.stats()
    total.requests += stats.requests
    add(total.commands, stats.byCommand)
    // Read after the counts were taken, so that this read is not among them.
    if ((await redis.hget(INDEX_STATE, 'ready')) !== null) return total
    if (total.runs === MAX_SCHEDULED_RUNS) {
      throw new Error(`the index was not ready after ${MAX_SCHEDULED_RUNS} runs of the scheduled handler`)
    }
  }
}

/** Adds the counts of `more` into `into`. */
export function add(into: Record<string, number>, more: Record<string, number>): void {
  for (const [name, n] of Object.entries(more)) into[name] = (into[name] ?? 0) + n
}
