// Runs inside workerd: brings a test database's record index up to date, as
// the Worker's Cron Trigger would (lib/store/reconcile.ts).
import type { Env } from '../../lib/env'
import { INDEX_STATE } from '../../lib/store'
import { runScheduled } from './harness'
import type { TestRedis } from './harness'

/** Scheduled runs one reconcile may take at most here: 100,000 filler keys take one or two. */
const MOST_RUNS = 20

/**
 * Runs the scheduled handler until the index is ready and has completed a
 * pass since this call (so a fill or fixtures written before it are listed),
 * with the Worker's environment `env` (its bindings, such as SNAPSHOTS).
 */
export async function reconciled(db: TestRedis, env: Env = db.env): Promise<void> {
  const since = Number((await db.redis.hget<string>(INDEX_STATE, 'passed')) ?? -1)
  for (let run = 0; run < MOST_RUNS; run++) {
    await runScheduled(env)
    const passed = Number((await db.redis.hget<string>(INDEX_STATE, 'passed')) ?? -1)
    if (passed !== since && passed !== -1) return
  }
  throw new Error(`the record index completed no pass in ${MOST_RUNS} scheduled runs`)
}
