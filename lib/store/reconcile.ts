import { ROOT } from './keys'
import { INDEX_KEYS, isRecordKey } from './record-index'
import type { UpstashStore } from './upstash'

/**
 * Requests one run makes at most: a Cron Trigger's invocation has the
 * free plan's 50 subrequests, and the snapshot writer runs after it. At
 * SCAN's 10,000 slots a page, two requests a page, a million keys took
 * eight runs, then one for their sweep (test bridge, local Redis).
 */
export const RUN_REQUESTS = 30
/** Time one run takes at most; the next run goes on from where it stopped. */
export const RUN_MS = 20_000
/** Index members one sweep script checks. */
const SWEEP_PAGE = 10_000

/**
 * Where the reconcile is (KEYS: the index, its state): its phase (`scan`
 * unless `sweep`) and SCAN cursor ('0' to start a pass).
 */
const STATE_SCRIPT = `
local state = redis.call('HMGET', KEYS[2], 'phase', 'cursor', 'ready')
return {state[1] or 'scan', state[2] or '0', state[3] and 1 or 0}
`

/**
 * Adds one SCAN page's record keys to the index (KEYS: the index, its
 * state; ARGV: the cursor the page was read from, the one it answered,
 * then the keys). Each key is added only if it still exists: Redis runs
 * the script alone, so a key deleted through the service since the SCAN
 * (and taken out of the index then) stays out. Moves the cursor on, only
 * from where the page was read (a run that overlaps another stops); at the
 * end of the keyspace, the sweep begins. Answers the keys added, -1 when
 * the cursor had moved.
 */
const ADD_SCRIPT = `
local at = redis.call('HGET', KEYS[2], 'cursor') or '0'
if at ~= ARGV[1] or (redis.call('HGET', KEYS[2], 'phase') or 'scan') ~= 'scan' then return -1 end
local added = 0
for i = 3, #ARGV do
  if redis.call('EXISTS', ARGV[i]) == 1 then added = added + redis.call('ZADD', KEYS[1], 0, ARGV[i]) end
end
if ARGV[2] == '0' then redis.call('HSET', KEYS[2], 'phase', 'sweep', 'cursor', '0', 'swept', '')
else redis.call('HSET', KEYS[2], 'cursor', ARGV[2]) end
return added
`

/**
 * Takes out of the index the members of its next page whose key no longer
 * exists (KEYS: the index, its state; ARGV: the page's size, the time now
 * in ms). After its last page, the pass is complete: the index is `ready`
 * (from the first pass on), `passed` says when, and the next pass starts.
 * Answers {1 when the pass completed, members removed}; {-1, 0} when no
 * sweep was due (another run finished it).
 */
const SWEEP_SCRIPT = `
if redis.call('HGET', KEYS[2], 'phase') ~= 'sweep' then return {-1, 0} end
local swept, most = redis.call('HGET', KEYS[2], 'swept') or '', tonumber(ARGV[1])
local from = '-'
if swept ~= '' then from = '(' .. swept end
local members = redis.call('ZRANGE', KEYS[1], from, '+', 'BYLEX', 'LIMIT', 0, most)
local removed = 0
for _, member in ipairs(members) do
  if redis.call('EXISTS', member) == 0 then removed = removed + redis.call('ZREM', KEYS[1], member) end
end
if #members < most then
  redis.call('HSET', KEYS[2], 'phase', 'scan', 'cursor', '0', 'swept', '', 'passed', ARGV[2])
  redis.call('HSETNX', KEYS[2], 'ready', ARGV[2])
  return {1, removed}
end
redis.call('HSET', KEYS[2], 'swept', members[#members])
return {0, removed}
`

/** What one run did. */
export interface ReconcileRun {
  /** Redis requests it made. */
  requests: number
  /** Keys it added to the index, and members it took out. */
  added: number
  removed: number
  /** Whether it completed a pass (then the index is ready). */
  passed: boolean
  /** Whether the index is ready after it: a pass was completed, by it or before. */
  ready: boolean
}

/**
 * One run of the record index's reconcile: resumable, bounded work. A pass
 * walks the keyspace a SCAN page (MATCH shenma:*) at a time, adding each
 * page's record keys to the index; then sweeps the index a page at a time,
 * taking out members whose key is gone; then marks the index ready. A run
 * stops after `limits` (requests, ms) or at the end of a pass, and the next
 * run goes on from the cursor kept in the index's state. What other modules
 * write straight into Redis is thus listed within a few runs.
 */
export async function reconcile(
  store: UpstashStore,
  limits: { requests: number; ms: number } = { requests: RUN_REQUESTS, ms: RUN_MS },
): Promise<ReconcileRun> {
  const started = Date.now()
  const run: ReconcileRun = { requests: 1, added: 0, removed: 0, passed: false, ready: false }
  let [phase, cursor, ready] = (await store.evalWrite(STATE_SCRIPT, INDEX_KEYS, [])) as [string, string, number]
  run.ready = ready === 1
  while (Date.now() - started < limits.ms) {
    if (phase === 'sweep') {
      if (run.requests + 1 > limits.requests) break
      run.requests++
      const [done, removed] = (await store.evalWrite(SWEEP_SCRIPT, INDEX_KEYS, [
        String(SWEEP_PAGE),
        String(Date.now()),
      ])) as [number, number]
      run.removed += removed
      run.passed = done === 1
      run.ready ||= run.passed
      if (done !== 0) break
    } else {
      if (run.requests + 2 > limits.requests) break
      run.requests += 2
      const page = await store.scanPage(cursor, `${ROOT}*`)
      const added = Number(
        await store.evalWrite(ADD_SCRIPT, INDEX_KEYS, [cursor, page.cursor, ...page.keys.filter(isRecordKey)]),
      )
      if (added === -1) break
      run.added += added
      cursor = page.cursor
      if (cursor === '0') phase = 'sweep'
    }
  }
  return run
}
