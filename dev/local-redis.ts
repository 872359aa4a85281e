// The Redis of `npm run dev:redis`: a real redis-server, the Upstash-protocol
// bridge in front of it, and the example records published into it by the
// CLI's own publish (lib/publish, as a write through the service: each record
// gets version 1 and its place in the record index).
import { join } from 'node:path'
import { main as cli } from '../cli'
import { upstashStore } from '../cli/direct'
import { reconcileIndex } from '../lib/store'
import { startRedis } from './redis-server'
import { startBridge } from './upstash-bridge'
import type { Bridge } from './upstash-bridge'

export interface LocalRedis {
  /** The loopback port redis-server listens on (for redis-cli). */
  redisPort: number
  /** UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN of its database. */
  url: string
  token: string
  /** What the seeding publish said last: how many records it wrote, and where. */
  seeded: string
  stop(): Promise<void>
}

/** The message kept with the version each example record gets. */
const SEED_MESSAGE = 'seeded by npm run dev:redis'

/**
 * Starts redis-server (throwing RedisServerMissing when there is none) and
 * the bridge, and publishes `<root>/examples` into database 0; on any failure
 * stops what it started.
 */
export async function startLocalRedis(root: string): Promise<LocalRedis> {
  const redis = await startRedis()
  let bridge: Bridge | undefined
  const stop = async (): Promise<void> => {
    await bridge?.stop()
    await redis.stop()
  }
  try {
    bridge = await startBridge({ redisPort: redis.port })
    const token = await bridge.open(0)
    const seeded = await seed(join(root, 'examples'), bridge.url, token)
    await indexReady(bridge.url, token)
    return { redisPort: redis.port, url: bridge.url, token, seeded, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** `npx ai-prompt-shell publish <folder>` into the database, in this process; its last line, or an Error with its output. */
async function seed(folder: string, url: string, token: string): Promise<string> {
  const out: string[] = []
  const err: string[] = []
  const status = await cli(['publish', folder, '--url', url, '--token', token, '--message', SEED_MESSAGE], {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: {},
  })
  if (status !== 0) throw new Error(`publishing ${folder} failed:\n${[...out, ...err].join('\n')}`)
  return out.at(-1) ?? ''
}

/**
 * One run of the record index's reconcile, which marks the index ready: wrangler dev runs no Cron
 * Trigger, and until a first reconcile every read walks the keyspace (docs/redis.md).
 */
async function indexReady(url: string, token: string): Promise<void> {
  const run = await reconcileIndex(upstashStore(url, token))
  if (!run?.ready) throw new Error('the record index is not ready after one reconcile run')
}
