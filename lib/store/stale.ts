import { describeError, log } from '../log'

/**
 * Stale if error: while Redis fails, a read of the render path may be
 * answered from a last good copy (cached.ts keeps them: the isolate's
 * entries past their freshness, the location's Cache API entries, and the
 * prompt's Workers KV snapshot, lib/render/snapshots.ts), no older than
 * STORE_STALE_MAX_S. What is answered so says so (X-Prompt-Stale,
 * STORE_STALE); a copy too old, or none, fails the read as before.
 */
export interface StaleOptions {
  /** STORE_STALE_MAX_S in ms: the oldest copy a read may be answered from; 0, none. */
  maxAgeMs: number
  /** The prompts' snapshots (the SNAPSHOTS binding), when the Worker has one. */
  snapshots: KVNamespace | undefined
  /** How long a read that has a copy to fall back on waits for Redis before the copy answers it. */
  waitMs: number
}

/**
 * The reads a render of one prompt makes, as the scheduled run found them at
 * `at` (ms since the epoch): each value by the id a CachedStore keeps it
 * under, its namespace left out.
 */
export interface Snapshot {
  at: number
  reads: Record<string, unknown>
}

/** A cached read, and when it was asked of Redis. */
export interface Copy<T> {
  value: T
  fetchedAt: number
}

/** Seconds a KV read keeps a snapshot at the edge: KV's least, and the snapshot's age still says how old it is. */
const SNAPSHOT_CACHE_TTL_S = 60

/** The KV key of the snapshot of prompt `promptId` of the Redis database of `namespace` (cached.ts's namespaceOf). */
export function snapshotKey(namespace: string, promptId: string): string {
  return `${namespace}/${promptId}`
}

/**
 * One request's last good copies (made with its store, openFreshStore):
 * how old one may be, the snapshot of the prompt it reads, and how old the
 * oldest copy it was answered from is.
 */
export class StaleReads {
  #oldestMs: number | undefined
  #prompt: string | undefined
  #snapshot: Promise<Snapshot | undefined> | undefined

  /** When the request began to read (performance.now()), from which its reads wait StaleOptions.waitMs in all. */
  readonly #startedAt = performance.now()

  constructor(
    readonly options: StaleOptions,
    readonly namespace: string,
  ) {}

  /**
   * How long a read that has a copy may still wait for Redis: what is left
   * of the request's waitMs, so that reads one after the other (a prompt,
   * then its variables) do not each wait it.
   */
  waitLeftMs(): number {
    return Math.max(0, this.options.waitMs - (performance.now() - this.#startedAt))
  }

  /** The age of the oldest copy this request was answered from, in ms; undefined while every answer was fresh. */
  get ageMs(): number | undefined {
    return this.#oldestMs
  }

  /**
   * Says that the request reads prompt `promptId` from now on: a read Redis
   * fails, with no copy here, may be answered from that prompt's snapshot.
   * Only the last one named is held, so a request holds one snapshot at most.
   */
  reading(promptId: string): void {
    if (promptId === this.#prompt) return
    this.#prompt = promptId
    this.#snapshot = undefined
  }

  /** Whether `copy` may answer a read now: read after `since` (this isolate's last write), and young enough. */
  usable<T>(copy: Copy<T> | undefined, since: number, now: number): copy is Copy<T> {
    if (copy === undefined || copy.fetchedAt < since) return false
    const age = now - copy.fetchedAt
    return age >= 0 && age <= this.options.maxAgeMs
  }

  /** The copy of the read `id` (without its namespace) in the snapshot of the prompt being read, if there is one. */
  async fromSnapshot(id: string): Promise<Copy<unknown> | undefined> {
    const snapshot = await this.#load()
    if (!snapshot || !Object.hasOwn(snapshot.reads, id)) return undefined
    return { value: snapshot.reads[id], fetchedAt: snapshot.at }
  }

  /** Notes that a read was answered from a copy `ageMs` old. */
  served(ageMs: number): void {
    this.#oldestMs = Math.max(this.#oldestMs ?? 0, ageMs)
  }

  /** The STORE_STALE warning of an answer made from last good copies; undefined when none was. */
  warning(): { code: 'STORE_STALE'; message: string; age_s: number } | undefined {
    const ageMs = this.#oldestMs
    if (ageMs === undefined) return undefined
    const ageS = Math.floor(ageMs / 1000)
    const maxS = this.options.maxAgeMs / 1000
    return {
      code: 'STORE_STALE',
      message: `Redis is unavailable: answered from a copy read ${ageS} s ago (STORE_STALE_MAX_S is ${maxS})`,
      age_s: ageS,
    }
  }

  #load(): Promise<Snapshot | undefined> {
    const kv = this.options.snapshots
    const prompt = this.#prompt
    if (!kv || prompt === undefined) return Promise.resolve(undefined)
    this.#snapshot ??= readSnapshot(kv, snapshotKey(this.namespace, prompt))
    return this.#snapshot
  }
}

/** A snapshot from KV; undefined when there is none, or KV fails too (the read then fails as it would have). */
async function readSnapshot(kv: KVNamespace, key: string): Promise<Snapshot | undefined> {
  let stored: unknown
  try {
    stored = await kv.get(key, { type: 'json', cacheTtl: SNAPSHOT_CACHE_TTL_S })
  } catch (e) {
    log.warn('snapshot unreadable', { key, reason: describeError(e) })
    return undefined
  }
  const snapshot = stored as Partial<Snapshot> | null
  if (typeof snapshot?.at !== 'number' || typeof snapshot.reads !== 'object' || snapshot.reads === null)
    return undefined
  return { at: snapshot.at, reads: snapshot.reads }
}
