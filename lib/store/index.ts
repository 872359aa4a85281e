import type { Env } from '../env'
import { intVar } from '../env'
import { ServiceError } from '../http/errors'
import { describeError, log } from '../log'
import { CachedStore, namespaceOf } from './cached'
import { EmbeddedStore } from './embedded'
import { EMBEDDED_RECORDS } from './embedded-records.generated'
import { UpstashStore } from './upstash'
import type { Store } from './types'

export type { Store, StoreKind } from './types'
export { EmbeddedStore } from './embedded'
export { CachedStore, FRESH_MS } from './cached'
export { UpstashStore } from './upstash'
export * from './keys'

const DEFAULT_REDIS_TIMEOUT_MS = 2000

/** Immutable and bundled: one per isolate is enough. */
let embedded: EmbeddedStore | undefined

/**
 * The store this request reads: Upstash when both of its variables are set,
 * the embedded examples when neither is. One without the other is a
 * misconfiguration, answered as such rather than silently served from the
 * examples.
 */
export function openStore(env: Env): Store {
  const url = env.UPSTASH_REDIS_REST_URL
  const token = env.UPSTASH_REDIS_REST_TOKEN
  if (url && token) {
    try {
      return new UpstashStore({ url, token, timeoutMs: intVar(env, 'REDIS_TIMEOUT_MS', DEFAULT_REDIS_TIMEOUT_MS) })
    } catch (e) {
      // A bad REDIS_TIMEOUT_MS, or a URL the client refuses: Redis cannot be reached as configured.
      throw new ServiceError('STORE_UNAVAILABLE', `Redis is misconfigured: ${describeError(e)}`, { cause: e })
    }
  }
  if (url || token) {
    const missing = url ? 'UPSTASH_REDIS_REST_TOKEN' : 'UPSTASH_REDIS_REST_URL'
    throw new ServiceError('STORE_UNAVAILABLE', `Redis is half configured: ${missing} is not set`)
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

/**
 * The store with 5-second freshness (see cached.ts), for the render path:
 * reads of prompts, tools and variables within 5 s of each other cost no
 * Redis request. The embedded store is memory already and is returned as it is.
 */
export async function openFreshStore(env: Env, waitUntil: (p: Promise<unknown>) => void): Promise<Store> {
  const store = openStore(env)
  if (!(store instanceof UpstashStore)) return store
  const id = `${env.UPSTASH_REDIS_REST_URL}\n${env.UPSTASH_REDIS_REST_TOKEN}`
  let namespace = namespaces.get(id)
  if (!namespace) {
    namespace = namespaceOf(env.UPSTASH_REDIS_REST_URL as string, env.UPSTASH_REDIS_REST_TOKEN as string)
    namespaces.set(id, namespace)
  }
  const shared = typeof caches === 'undefined' ? undefined : (caches as unknown as { default: Cache }).default
  return new CachedStore(store, { namespace: await namespace, shared, waitUntil, flightLimitMs: store.readLimitMs })
}
