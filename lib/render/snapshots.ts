import { basePaths, findTools, listPrompts, loadVariables } from '../catalog'
import type { Paged, Prompt } from '../catalog'
import type { Env } from '../env'
import { ServiceError } from '../errors'
import { describeError, log } from '../log'
import { settingsFrom } from '../settings'
import type { Settings } from '../settings'
import { Recording, UpstashStore, digestOf, namespaceFor, openStore, snapshotKey } from '../store'
import type { Snapshot } from '../store'
import { readForRender } from './pipeline'

/**
 * Snapshots of the render path for Workers KV: per prompt of the base (no
 * label), the reads a render of it makes (its record, the tools its
 * templates call, the shared variables they and its tools read) and those a
 * chat adds (the tools it declares, their modules' base URLs), as Redis
 * answers them now. A location that never served a prompt can then still
 * render it while Redis fails (lib/store/stale.ts), from a copy at most
 * STORE_STALE_MAX_S old. Written by the scheduled handler, a few prompts a
 * run, and only when a snapshot changed or is getting old: KV's writes are
 * limited, and this is a fallback, not the truth.
 */

/** Prompts read per run at most: with RUN_BUDGET_MS, what bounds a run's Redis requests and KV writes. */
export const PROMPTS_PER_RUN = 50
/** No prompt is started once a run has taken this long: well within a cron run's time, and before the next run. */
const RUN_BUDGET_MS = 20_000
/** Bytes of one prompt's snapshot at most; a larger one is not written (and logged). */
export const MAX_SNAPSHOT_BYTES = 1024 * 1024
/** KV's longest key, in bytes. */
const MAX_KV_KEY_BYTES = 512
/** KV's least expirationTtl. */
const MIN_KV_TTL_S = 60
/**
 * The runs' own state, beside the records (no record kind: never indexed or
 * listed): `cursor`, where the prompts' listing goes on next run; per prompt,
 * `p:{id}`, the digest of its snapshot in KV and when that was written.
 */
const STATE_KEY = 'shenma:snapshots:state'
const READ_STATE = "return redis.call('HMGET', KEYS[1], unpack(ARGV))"
const WRITE_STATE = "redis.call('HSET', KEYS[1], unpack(ARGV)) return 1"

/** What a run did, per prompt it read. */
export interface SnapshotRun {
  /** Snapshots written to KV: new, changed, or rewritten before they grew too old. */
  written: number
  /** Snapshots the same as the one KV holds, and young enough: not written. */
  unchanged: number
  /** Prompts with no snapshot written: past MAX_SNAPSHOT_BYTES, not plannable (a bad record), or refused by KV. */
  skipped: number
  /** The listing's cursor the next run starts at; '' when this run reached the end of the prompts. */
  cursor: string
}

/**
 * One run: the next PROMPTS_PER_RUN prompts after the last run's (from the
 * first again once past the last), within RUN_BUDGET_MS. Does nothing
 * without Redis, without the SNAPSHOTS binding, or with STORE_STALE_MAX_S=0;
 * a Redis failure ends the run (the snapshots KV holds stay as they are).
 */
export async function writeSnapshots(env: Env): Promise<SnapshotRun> {
  const run: SnapshotRun = { written: 0, unchanged: 0, skipped: 0, cursor: '' }
  const settings = settingsFrom(env)
  const { maxAgeMs, snapshots: kv } = settings.stale
  const store = openStore(settings.redis)
  if (!kv || maxAgeMs === 0 || !(store instanceof UpstashStore)) return run
  const started = Date.now()
  try {
    const namespace = await namespaceFor(store)
    const [at] = await readState(store, ['cursor'])
    const page = await promptsFrom(store, at || undefined)
    const next = page.items
    const held = await readState(
      store,
      next.map((p) => `p:${p.id}`),
    )
    const changed: string[] = []
    // Past the last page, the next run starts again from the first; a run cut short does its page again.
    run.cursor = page.next ?? ''
    for (const [i, { id }] of next.entries()) {
      if (Date.now() - started > RUN_BUDGET_MS) {
        run.cursor = at ?? ''
        break
      }
      const snapshot = await snapshotOf(store, id, settings)
      const key = snapshotKey(namespace, id)
      const text = snapshot && JSON.stringify(snapshot.reads)
      if (!snapshot || text === undefined || !fits(key, text)) {
        run.skipped++
        continue
      }
      const digest = await digestOf(text)
      const [heldDigest, heldAt] = (held[i] ?? '').split(' ')
      if (heldDigest === digest && snapshot.at - Number(heldAt) < maxAgeMs / 2) {
        run.unchanged++
        continue
      }
      const ttl = Math.max(MIN_KV_TTL_S, Math.ceil(maxAgeMs / 1000))
      try {
        await kv.put(key, `{"at":${snapshot.at},"reads":${text}}`, { expirationTtl: ttl })
      } catch (e) {
        // KV limits writes (per key, per day): this one is tried again at the next run.
        log.warn('snapshot not written: KV refused it', { key, reason: describeError(e) })
        run.skipped++
        continue
      }
      changed.push(`p:${id}`, `${digest} ${snapshot.at}`)
      run.written++
    }
    await store.transaction([['EVAL', WRITE_STATE, '1', STATE_KEY, 'cursor', run.cursor, ...changed]], true)
  } catch (e) {
    if (!(e instanceof ServiceError && e.code === 'STORE_UNAVAILABLE')) throw e
    log.warn('snapshots not written: Redis failed', { reason: e.message, ...run })
  }
  return run
}

/**
 * The page of PROMPTS_PER_RUN prompts at the listing's cursor `at`; the
 * first page when there is none, or when it is one the listing no longer
 * takes (a cursor kept by an earlier version).
 */
async function promptsFrom(store: UpstashStore, at: string | undefined): Promise<Paged<Prompt>> {
  try {
    return await listPrompts(store, { cursor: at, limit: PROMPTS_PER_RUN })
  } catch (e) {
    if (!(e instanceof ServiceError && e.code === 'BAD_REQUEST')) throw e
    return listPrompts(store, { limit: PROMPTS_PER_RUN })
  }
}

/** The reads a render and a chat of prompt `id` make, as Redis answers them now; undefined when it cannot be planned. */
async function snapshotOf(store: UpstashStore, id: string, settings: Settings): Promise<Snapshot | undefined> {
  // Stamped before reading: the copy is as old as its first read.
  const at = Date.now()
  const recording = new Recording(store)
  try {
    const record = await readForRender(recording, id, settings.render)
    const declared = (await findTools(recording, record.tools ?? [])).items
    await loadVariables(recording, basePaths(declared), settings.environMaxBytes)
  } catch (e) {
    if (e instanceof ServiceError && e.code === 'STORE_UNAVAILABLE') throw e
    // A render of it fails as well: it has nothing to fall back to.
    log.warn('snapshot skipped: the prompt cannot be planned', { prompt: id, reason: describeError(e) })
    return undefined
  }
  return { at, reads: recording.reads }
}

/** Whether the snapshot of `text` can be written under `key`: within KV's key size and MAX_SNAPSHOT_BYTES. */
function fits(key: string, text: string): boolean {
  const encoder = new TextEncoder()
  if (encoder.encode(key).length > MAX_KV_KEY_BYTES) {
    log.warn('snapshot skipped: its KV key is too long', { key: key.slice(0, 80), limit: MAX_KV_KEY_BYTES })
    return false
  }
  const bytes = encoder.encode(text).length
  if (bytes > MAX_SNAPSHOT_BYTES) {
    log.warn('snapshot skipped: too large', { key, bytes, limit: MAX_SNAPSHOT_BYTES })
    return false
  }
  return true
}

/** The values of `fields` of the runs' state, in order; undefined where there is none. */
async function readState(store: UpstashStore, fields: readonly string[]): Promise<(string | undefined)[]> {
  if (fields.length === 0) return []
  const [reply] = await store.transaction([['EVAL', READ_STATE, '1', STATE_KEY, ...fields]], false)
  if (reply?.error !== undefined) throw new ServiceError('STORE_UNAVAILABLE', `Redis HMGET failed: ${reply.error}`)
  const values = Array.isArray(reply?.result) ? (reply.result as unknown[]) : []
  return fields.map((_, i) => (typeof values[i] === 'string' ? (values[i] as string) : undefined))
}
