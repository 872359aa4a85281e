import { misconfigured } from '../errors'
import { log } from '../log'
import { CachedStore, forgetBefore, namespaceOf } from './cached'
import { EmbeddedStore } from './embedded'
import { EMBEDDED_RECORDS } from './embedded-records.generated'
import { LabeledStore } from './labeled'
import { reconcile } from './reconcile'
import type { ReconcileRun } from './reconcile'
import { StaleReads } from './stale'
import type { StaleOptions } from './stale'
import { UpstashStore } from './upstash'
import type { UpstashConfig } from './upstash'
import { runsCommands } from './types'
import type { CommandStore, Page, Store } from './types'

export type {
  Command,
  CommandStore,
  Generational,
  Page,
  Reply,
  Store,
  StoreKind,
  Tree,
  TreeRequest,
  Within,
} from './types'
export { isGenerational, runsCommands } from './types'
export { EmbeddedStore } from './embedded'
export { CachedStore, FRESH_MS, readIds } from './cached'
export { StaleReads, snapshotKey } from './stale'
export type { Snapshot, StaleOptions } from './stale'
export { LabeledStore } from './labeled'
export { UpstashStore } from './upstash'
export {
  MAX_HISTORY,
  commit,
  commitIf,
  digestOf,
  hexDigest,
  hexOf,
  listVersions,
  readVersion,
  versionFrom,
} from './history'
export { Observed } from './observed'
export { Recording } from './recording'
export { passedAt } from './within'
export { allKeys } from './tree'
export { INDEX_KEY, INDEX_STATE } from './record-index'
export type { ReconcileRun } from './reconcile'
export type { Change, StoredVersion, VersionEntry } from './history'
export * from './keys'

/** Immutable and bundled: one per isolate is enough. */
let embedded: EmbeddedStore | undefined
/**
 * The Upstash store of each configuration (lib/settings.ts makes one per
 * isolate): its SDK clients are built once, not on every request.
 */
const upstashStores = new WeakMap<UpstashConfig, UpstashStore>()

/**
 * The store this request reads: Upstash when its settings are (lib/settings.ts
 * refuses one of URL and token without the other), the embedded examples
 * when they are unset. A URL the client refuses is 503 MISCONFIGURED too;
 * STORE_UNAVAILABLE is kept for a Redis that fails when asked.
 */
export function openStore(redis: UpstashConfig | undefined): Store {
  if (redis) {
    try {
      let store = upstashStores.get(redis)
      if (!store) upstashStores.set(redis, (store = new UpstashStore(redis)))
      return store
    } catch (e) {
      // The client's own message quotes the whole URL; the setting's name says enough.
      throw misconfigured('UPSTASH_REDIS_REST_URL', 'is not a URL the Redis client accepts (http:// or https://)', e)
    }
  }
  if (!embedded) {
    embedded = new EmbeddedStore(EMBEDDED_RECORDS)
    log.info('using the embedded store: UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN are unset', {
      store: 'embedded',
      records: EMBEDDED_RECORDS.length,
    })
  }
  return embedded
}

/** Namespaces by endpoint and token, digested once per isolate. */
const namespaces = new Map<string, Promise<string>>()

/** The namespace of `store`'s data in the caches and the snapshots: a digest of its endpoint and token. */
export function namespaceFor(store: UpstashStore): Promise<string> {
  let namespace = namespaces.get(store.identity)
  if (!namespace) {
    const [url, token] = store.identity.split('\n') as [string, string]
    namespace = namespaceOf(url, token)
    namespaces.set(store.identity, namespace)
  }
  return namespace
}

/**
 * The store with 5-second freshness (see cached.ts), for the render path:
 * reads of prompts, tools and variables within 5 s of each other cost no
 * Redis request; with `stale`, reads Redis fails are answered from last
 * good copies (stale.ts). One per request. The embedded store is memory
 * already and is returned as it is.
 */
export async function openFreshStore(
  redis: UpstashConfig | undefined,
  waitUntil: (p: Promise<unknown>) => void,
  stale?: StaleOptions,
): Promise<Store> {
  const store = openStore(redis)
  if (!(store instanceof UpstashStore)) return store
  const shared = typeof caches === 'undefined' ? undefined : (caches as unknown as { default: Cache }).default
  const namespace = await namespaceFor(store)
  const lastGood = stale && stale.maxAgeMs > 0 ? new StaleReads(stale, namespace) : undefined
  return new CachedStore(store, { namespace, shared, waitUntil, flightLimitMs: store.readLimitMs, stale: lastGood })
}

/** The first of `store` and the stores it reads through (caches, labels: their `inner`) that `is` takes. */
function through<T extends Store>(store: Store, is: (at: Store) => at is T): T | undefined {
  for (let at: Store | undefined = store; at; at = (at as { inner?: Store }).inner) if (is(at)) return at
  return undefined
}

/** The last good copies of the request `store` reads for (see openFreshStore); none outside the render path. */
export function staleOf(store: Store): StaleReads | undefined {
  return through(store, (at) => at instanceof CachedStore)?.options.stale
}

/** After a write to `store`: this isolate's cached reads of it are read again (see forgetBefore). */
export async function noteWrite(store: Store): Promise<void> {
  if (store instanceof UpstashStore) forgetBefore(await namespaceFor(store))
}

/** `store` as `label` sees it (labeled.ts); the base when there is no label. */
export function withLabel<S extends Store>(store: S, label: string | undefined): S | LabeledStore {
  return label === undefined ? store : new LabeledStore(store, label)
}

/**
 * A page of the labels that have records of their own, after the label
 * `after` ('' from the first), from the record index of `store`'s Redis;
 * the embedded store has none.
 */
export function labelPage(store: Store, after: string, limit: number): Promise<Page> {
  const redis = through(store, (at) => at instanceof UpstashStore)
  return redis ? redis.labels(after, limit) : Promise.resolve({ keys: [], more: false })
}

/** The store below the caches and labels `store` reads through, when it runs commands (Redis does; the embedded store does not). */
export function commandsOf(store: Store): (Store & CommandStore) | undefined {
  return through(store, runsCommands)
}

/**
 * One run of the record index's reconcile (reconcile.ts) on `store`'s Redis,
 * for the scheduled handler; undefined for the embedded store, which has no index to keep.
 */
export function reconcileIndex(store: Store): Promise<ReconcileRun> | undefined {
  return store instanceof UpstashStore ? reconcile(store) : undefined
}
