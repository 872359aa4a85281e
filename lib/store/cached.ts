import { ServiceError } from '../errors'
import { requestLog } from '../log'
import { AbandonedFlight, fly, inFlight, join } from './flights'
import { hexDigest } from './history'
import type { Copy, StaleReads } from './stale'
import type { Generational, Page, Store, StoreKind, Tree, TreeRequest, Within } from './types'

/** How long a read stays fresh: the spec's 5-second variable cache. */
export const FRESH_MS = 5000
/** An entry this close to its expiry is read again in the background while it is still served. */
const REFRESH_AHEAD_MS = 1000
/** Characters of cached text one isolate keeps at most (an isolate has 128 MB); the oldest entries go first. */
const MAX_CHARS = 16 * 1024 * 1024
/** Never resolved: a URL only the Cache API sees. */
const CACHE_ORIGIN = 'https://cache.ai-prompt-shell.invalid'

type Entry<T> = Copy<T>

/**
 * One isolate's reads, shared by its requests. Module state lives as long as
 * the isolate: a cache, never the truth. Keyed by store namespace, so that two
 * Redis databases (two tenants, two test runs) never share an entry.
 */
const isolate = new Map<string, Entry<unknown> & { size: number }>()
let isolateChars = 0
/** Per namespace, a count of the changes to its entries: what a plan derived from them was built at. */
const epochs = new Map<string, number>()
/** Per namespace, when this isolate last wrote to its store: what was read before is no longer fresh here. */
const writtenAt = new Map<string, number>()
/**
 * The namespaces whose last read of Redis failed or was late, each with
 * when Redis was last asked: until a read answers again, a read with a last
 * good copy is answered from it at once (see #read and #settle), rather than
 * each request waiting on a Redis that is down, and Redis is asked again at
 * most once per PROBE_MS, so that an isolate does not hammer it either. The
 * first read that Redis answers ends it.
 */
const failing = new Map<string, number>()
/** While Redis is failing, how often an isolate asks it again (for a read that has a copy). */
const PROBE_MS = 1000

/** Notes that a read of `namespace` failed or was late: the first such starts a probe period. */
function failed(namespace: string): void {
  if (!failing.has(namespace)) failing.set(namespace, Date.now())
}

/** Whether reads of `namespace` should not ask Redis now: it is failing, and it was asked less than PROBE_MS ago. */
function resting(namespace: string): boolean {
  const asked = failing.get(namespace)
  if (asked === undefined) return false
  const since = Date.now() - asked
  // A clock that went back is no reason to wait longer.
  if (since >= 0 && since < PROBE_MS) return true
  failing.set(namespace, Date.now())
  return false
}

/**
 * Says that this isolate just wrote to the store of `namespace`: its reads
 * from before (here, in the location's cache, or in flight) are read again.
 * Other isolates see the write when their entries expire, within FRESH_MS.
 */
export function forgetBefore(namespace: string): void {
  writtenAt.set(namespace, Date.now())
  epochs.set(namespace, (epochs.get(namespace) ?? 0) + 1)
}

/** Ids are `{namespace}/...`: a change to one is a change of its namespace. */
function changed(id: string): void {
  const namespace = id.slice(0, id.indexOf('/'))
  epochs.set(namespace, (epochs.get(namespace) ?? 0) + 1)
}

function remember(key: string, entry: Entry<unknown>): void {
  forget(key)
  const size = key.length + sizeOf(entry.value)
  isolate.set(key, { ...entry, size })
  isolateChars += size
  changed(key)
  // Insertion order is age order: the oldest entries, most likely expired, go first.
  for (const oldest of isolate.keys()) {
    if (isolateChars <= MAX_CHARS) break
    forget(oldest)
  }
}

function forget(key: string): void {
  const entry = isolate.get(key)
  if (!entry) return
  isolateChars -= entry.size
  isolate.delete(key)
  changed(key)
}

function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length
  if (typeof value === 'object' && value !== null)
    return Object.values(value).reduce((n: number, v) => n + sizeOf(v) + 1, 0)
  return 8
}

/**
 * Younger than 5 s, and read after this isolate's last write. An entry from
 * the future (another isolate's clock ahead of ours) is not trusted.
 */
function fresh<T>(entry: Entry<T> | undefined, since: number): entry is Entry<T> {
  if (entry === undefined) return false
  const age = Date.now() - entry.fetchedAt
  return age >= 0 && age < FRESH_MS && entry.fetchedAt >= since
}

/**
 * The id a read is kept under, its namespace left out: a snapshot
 * (recording.ts) records each read by it, so that a CachedStore finds it there.
 */
export const readIds = {
  page: (prefix: string, after: string, limit: number) => `page/${limit}/${prefix}\n${after}`,
  value: (key: string) => `value/${key}`,
  // A digest, as keys may be many and long: an id is also a URL of the shared cache.
  within: async (keys: readonly string[], maxBytes: number) =>
    `within/${await hexDigest('SHA-256', `${maxBytes}\n${keys.join('\n')}`)}`,
  tree: async ({ keys, prefixes, probes, maxBytes, label }: TreeRequest) =>
    `tree/${await hexDigest('SHA-256', [label ?? '', maxBytes, keys.join('\n'), prefixes.join('\n'), probes.join('\n')].join('\n\n'))}`,
}

export interface CacheOptions {
  /** Distinguishes this store's data from every other's; a digest, never a secret. */
  namespace: string
  /** The location's shared cache (caches.default), when there is one. */
  shared: Cache | undefined
  /** Keeps the isolate alive for background cache writes. */
  waitUntil: (p: Promise<unknown>) => void
  /** The longest one read of the inner store takes before it fails (see flights.ts). */
  flightLimitMs: number
  /** The request's last good copies (stale.ts), answering the reads Redis fails; unset, a failed read fails. */
  stale?: StaleReads | undefined
}

/**
 * A store whose reads stay fresh for 5 seconds: first in this isolate, then
 * in the location's Cache API (shared by the isolates of one location),
 * then from Redis. KV cannot hold an entry for 5 s (its least TTL is 60 s).
 * Freshness is judged by the time stored with each entry, so every layer
 * agrees on when an entry expired. Entries outlive their freshness (the
 * isolate's until MAX_CHARS pushes them out, the Cache API's for
 * STORE_STALE_MAX_S): while Redis fails, they answer (see #lastGood).
 */
export class CachedStore implements Store, Generational {
  readonly kind: StoreKind
  answered = 0
  missed = 0
  treeReadAt: number | undefined
  /** When the oldest answer given so far is due to be read again (then a render must read, to refresh it). */
  #holdsUntil = Infinity

  constructor(
    readonly inner: Store,
    readonly options: CacheOptions,
  ) {
    this.kind = inner.kind
  }

  /** Any entry of this namespace stored or dropped in this isolate is a new generation. */
  get generation(): string {
    return `${this.options.namespace}#${epochs.get(this.options.namespace) ?? 0}`
  }

  answersHoldUntil(): number {
    return this.#holdsUntil
  }

  async page(prefix: string, after: string, limit: number): Promise<Page> {
    const [page] = await this.#read<Page>(
      [`${this.options.namespace}/${readIds.page(prefix, after, limit)}`],
      async () => [await this.inner.page(prefix, after, limit)],
    )
    return page as Page
  }

  values(keys: readonly string[]): Promise<(string | null)[]> {
    const prefix = `${this.options.namespace}/${readIds.value('')}`
    return this.#read<string | null>(
      keys.map((key) => prefix + key),
      (ids) => this.inner.values(ids.map((id) => id.slice(prefix.length))),
    )
  }

  /**
   * A read within a budget is kept whole, values or sizes, as one entry
   * named by its keys and budget: concurrent reads of one subtree share one
   * request, and a refused one costs none while it is fresh.
   */
  async valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within> {
    if (keys.length === 0) return { within: true, values: [] }
    const id = `${this.options.namespace}/${await readIds.within(keys, maxBytes)}`
    const [answer] = await this.#read<Within>([id], async () => [await this.inner.valuesWithin(keys, maxBytes)])
    return answer as Within
  }

  /** A tree read is kept whole, as a read within a budget is, named by a digest of what it asked. */
  async tree(request: TreeRequest): Promise<Tree> {
    const id = `${this.options.namespace}/${await readIds.tree(request)}`
    const [answer] = await this.#read<Tree>([id], async () => [await this.inner.tree(request)])
    // A miss is kept from when Redis was asked; a hit, from when its copy was.
    this.treeReadAt = isolate.get(id)?.fetchedAt
    return answer as Tree
  }

  /** When this isolate last wrote to the store: entries read before are stale here. */
  #since(): number {
    return writtenAt.get(this.options.namespace) ?? -Infinity
  }

  /**
   * The values of `ids`: fresh entries as they are, misses from a read in
   * flight or one new read of them all. `read` fetches some of the ids from
   * the inner store, in their order.
   */
  async #read<T>(ids: readonly string[], read: (ids: readonly string[]) => Promise<(T | undefined)[]>): Promise<T[]> {
    const since = this.#since()
    const local = ids.map((id) => isolate.get(id) as Entry<T> | undefined).map((e) => (fresh(e, since) ? e : undefined))
    // A render served from this isolate's cache (the usual case under load) waits for no lookup.
    const hits = local.every((e) => e !== undefined) ? local : await this.#lookup<T>(ids, local)
    const now = Date.now()
    // Entries about to expire are read again in the background, so that under steady load no render waits for Redis.
    const ageing = ids.filter((id, i) => {
      const hit = hits[i]
      return hit !== undefined && now - hit.fetchedAt >= FRESH_MS - REFRESH_AHEAD_MS && !inFlight(id, since)
    })
    if (ageing.length > 0) this.options.waitUntil(Promise.all(this.#fly(ageing, read)).catch(() => undefined))

    this.answered += ids.length
    // A kept plan must not outlive the refresh-ahead of what it was built from; a miss is fresh from now.
    for (const hit of hits)
      this.#holdsUntil = Math.min(this.#holdsUntil, (hit?.fetchedAt ?? now) + FRESH_MS - REFRESH_AHEAD_MS)
    const misses = ids.filter((_, i) => hits[i] === undefined)
    const answers = new Map<string, Promise<T>>()
    for (const id of misses) if (!answers.has(id) && inFlight(id, since)) answers.set(id, this.#join(id, read))
    const joined = answers.size
    const unflown = [...new Set(misses.filter((id) => !answers.has(id)))]
    const record = requestLog()
    record?.count('cache', 'hits', ids.length - misses.length)
    // A miss joined to another request's read costs this request no Redis request.
    record?.count('cache', 'joined', joined)
    record?.count('cache', 'misses', unflown.length)
    this.missed += unflown.length
    if (misses.length === 0) return hits.map((hit) => (hit as Entry<T>).value)
    // Redis is failing and was asked a moment ago: the copies answer, and only a miss without one asks it.
    const waitFor = (id: string) => answers.get(id) ?? (this.#fly([id], read)[0] as Promise<T>)
    if (this.options.stale && resting(this.options.namespace)) {
      const settled = ids.map((_, i): PromiseSettledResult<T> => {
        const hit = hits[i]
        return hit ? { status: 'fulfilled', value: hit.value } : { status: 'rejected', reason: late(0) }
      })
      return this.#lastGood(ids, settled, waitFor, since)
    }
    this.#fly(unflown, read).forEach((answer, i) => answers.set(unflown[i] as string, answer))
    const pending = ids.map((id, i) => (hits[i] ? Promise.resolve(hits[i].value) : waitFor(id)))
    const settled = await this.#settle(pending)
    if (settled.every((s) => s.status === 'fulfilled')) return settled.map((s) => s.value)
    return this.#lastGood(ids, settled, waitFor, since)
  }

  /**
   * The reads, settled; with last good copies to fall back on, those Redis
   * has not answered within what is left of the request's StaleOptions.waitMs
   * (none while it is `failing`) are LATE instead, so that a Redis that hangs
   * is answered from a copy before the render's deadline, and one that is
   * down costs a request no wait.
   * A late read goes on, and is cached when it answers.
   */
  async #settle<T>(pending: readonly Promise<T>[]): Promise<PromiseSettledResult<T>[]> {
    const stale = this.options.stale
    if (stale === undefined) return Promise.allSettled(pending)
    const namespace = this.options.namespace
    const waitMs = failing.has(namespace) ? 0 : stale.waitLeftMs()
    const results: (PromiseSettledResult<T> | undefined)[] = pending.map(() => undefined)
    const all = Promise.all(
      pending.map((p, i) =>
        p.then(
          (value) => void (results[i] = { status: 'fulfilled', value }),
          (reason: unknown) => void (results[i] = { status: 'rejected', reason }),
        ),
      ),
    )
    let timer: ReturnType<typeof setTimeout> | undefined
    await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))])
    clearTimeout(timer)
    if (results.some((r) => r === undefined)) failed(namespace)
    return results.map((r) => r ?? { status: 'rejected', reason: late(waitMs) })
  }

  /**
   * The answers to a read Redis failed: each failed id from its last good
   * copy (this isolate's entry, kept past freshness, or the snapshot of the
   * prompt being read) when one is young enough; else the read fails as it
   * was going to. A plan made of such answers is not kept.
   */
  async #lastGood<T>(
    ids: readonly string[],
    settled: readonly PromiseSettledResult<T>[],
    waitFor: (id: string) => Promise<T>,
    since: number,
  ): Promise<T[]> {
    const stale = this.options.stale
    const failed = settled.filter((s) => s.status === 'rejected').map((s) => s.reason as unknown)
    const unavailable = (e: unknown) => e instanceof ServiceError && e.code === 'STORE_UNAVAILABLE'
    if (!stale || !failed.every(unavailable)) throw failed.find((e) => !unavailable(e)) ?? failed[0]
    const now = Date.now()
    const prefix = `${this.options.namespace}/`
    const answers: T[] = []
    let oldest: number | undefined
    for (const [i, s] of settled.entries()) {
      if (s.status === 'fulfilled') {
        answers.push(s.value)
        continue
      }
      const id = ids[i] as string
      let copy: Entry<unknown> | undefined = isolate.get(id)
      if (!stale.usable(copy, since, now)) copy = await stale.fromSnapshot(id.slice(prefix.length))
      if (stale.usable(copy, since, now)) {
        answers.push(copy.value as T)
        oldest = Math.max(oldest ?? 0, now - copy.fetchedAt)
      } else if (s.reason instanceof Late) {
        // No copy to answer a late read: it is waited for, as it would have been.
        answers.push(await waitFor(id))
      } else {
        throw s.reason
      }
    }
    if (oldest === undefined) return answers
    stale.served(oldest)
    // A plan made of copies is kept until Redis is asked again (see keptPlan in lib/render: it says it is stale).
    this.#holdsUntil = Math.min(this.#holdsUntil, now + PROBE_MS)
    requestLog()?.count('cache', 'stale', settled.filter((s) => s.status === 'rejected').length)
    return answers
  }

  /** One read of `ids`, shared with the misses that follow until it answers; each answer is cached. */
  #fly<T>(ids: readonly string[], read: (ids: readonly string[]) => Promise<(T | undefined)[]>): Promise<T>[] {
    if (ids.length === 0) return []
    // Fresh from when Redis was asked, not from when it answered.
    const asked = Date.now()
    const namespace = this.options.namespace
    const answers = fly(ids, this.options.flightLimitMs, async () => {
      let values: T[]
      try {
        values = (await read(ids)).map((value) => (value ?? null) as T)
      } catch (e) {
        if (e instanceof ServiceError && e.code === 'STORE_UNAVAILABLE') failed(namespace)
        throw e
      }
      failing.delete(namespace)
      ids.forEach((id, i) => this.#store(id, values[i], asked))
      return values
    })
    // Others may wait for this read: it must finish even if this request answers first (a 503 at its
    // deadline, say), which in workerd would otherwise cancel it and leave them waiting.
    this.options.waitUntil(Promise.allSettled(answers))
    return answers
  }

  /** The answer of the read of `id` in flight; a new read if that one was abandoned. */
  async #join<T>(id: string, read: (ids: readonly string[]) => Promise<(T | undefined)[]>): Promise<T> {
    try {
      return await join<T>(id)
    } catch (e) {
      if (!(e instanceof AbandonedFlight)) throw e
      return this.#fly([id], read)[0] as Promise<T>
    }
  }

  /** Fresh entries for `ids`: `found` in this isolate, the others from the shared cache; undefined where there is none. */
  async #lookup<T>(
    ids: readonly string[],
    found: readonly (Entry<T> | undefined)[],
  ): Promise<(Entry<T> | undefined)[]> {
    const shared = this.options.shared
    if (!shared) return [...found]
    return Promise.all(
      found.map(async (entry, i) => {
        if (entry) return entry
        const id = ids[i] as string
        let stored: Entry<T> | undefined
        try {
          const response = await shared.match(cacheUrl(id))
          stored = response ? ((await response.json()) as Entry<T>) : undefined
        } catch {
          // The shared cache is an optimisation: when it fails, Redis answers.
          return undefined
        }
        if (!stored) return undefined
        const since = this.#since()
        const isFresh = fresh(stored, since)
        // Past its freshness, it is a last good copy should Redis fail now: kept unless this isolate holds a newer one.
        const held = isolate.get(id)
        const lastGood =
          this.options.stale?.usable(stored, since, Date.now()) && (!held || held.fetchedAt < stored.fetchedAt)
        if (isFresh || lastGood) remember(id, stored)
        return isFresh ? stored : undefined
      }),
    )
  }

  #store(id: string, value: unknown, fetchedAt: number): void {
    // A slow read answering after a later one must not put the older value back; an entry from the
    // future (a clock that jumped back) is no newer value, and is replaced.
    const held = isolate.get(id)
    if (held && held.fetchedAt > fetchedAt && held.fetchedAt <= Date.now()) return
    const entry = { value, fetchedAt }
    remember(id, entry)
    const shared = this.options.shared
    if (!shared) return
    // Kept as long as it may answer while Redis fails; its fetchedAt, not this, says whether it is fresh.
    const keptS = Math.max(FRESH_MS, this.options.stale?.options.maxAgeMs ?? 0) / 1000
    const response = new Response(JSON.stringify(entry), {
      headers: { 'content-type': 'application/json', 'cache-control': `max-age=${keptS}` },
    })
    // A failed cache write costs only a later Redis read.
    this.options.waitUntil(shared.put(cacheUrl(id), response).catch(() => undefined))
  }
}

/** A read Redis has not answered within StaleOptions.waitMs: one a copy may answer. */
class Late extends ServiceError {}

function late(waitMs: number): Late {
  return new Late('STORE_UNAVAILABLE', `Redis did not answer within ${waitMs} ms`)
}

function cacheUrl(id: string): string {
  return `${CACHE_ORIGIN}/${encodeURIComponent(id)}`
}

/** A namespace for a Redis endpoint and token: their SHA-256, so no cache key holds the token. */
export async function namespaceOf(url: string, token: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${url}\n${token}`))
  return [...new Uint8Array(digest.slice(0, 16))].map((b) => b.toString(16).padStart(2, '0')).join('')
}
