import type { Env } from '../env'
import { describeError, log } from '../log'
import { settingsFrom } from '../settings'
import { writeSnapshots } from '../render'
import { openStore, reconcileIndex } from '../store'

/**
 * The Worker's `scheduled` handler, run by its Cron Trigger (wrangler.toml,
 * every minute): the store it opens from the settings, as a request does,
 * has its record index reconciled with what other modules wrote straight
 * into Redis (lib/store/reconcile.ts), then the prompts' snapshots are
 * written to KV for stale-if-error (lib/render/snapshots.ts): each a
 * bounded piece of work per run. Under the embedded store there is nothing
 * to do. A run that fails is logged, and the next one goes on from where it stopped.
 */
export async function scheduled(_controller: ScheduledController, env: Env, _ctx: ExecutionContext): Promise<void> {
  const settings = settingsFrom(env)
  if (settings.redis === undefined) return
  const started = Date.now()
  let ready = false
  try {
    const run = await reconcileIndex(openStore(settings.redis))
    ready = run?.ready === true
    log.info('record index reconciled', { ...run, duration_ms: Date.now() - started })
  } catch (e) {
    log.warn('record index reconcile failed', { reason: describeError(e), duration_ms: Date.now() - started })
  }
  // After the reconcile, so that the snapshots' reads go through the index just brought up to date; not before it
  // is ready, when listing the prompts would walk the keyspace.
  if (!ready) return
  try {
    const run = await writeSnapshots(env)
    log.info('prompt snapshots written', { ...run, duration_ms: Date.now() - started })
  } catch (e) {
    log.warn('prompt snapshots failed', { reason: describeError(e), duration_ms: Date.now() - started })
  }
}
