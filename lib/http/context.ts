import type { Context } from 'hono'
import type { Env } from '../env'
import type { RequestLog } from '../log'
import { openFreshStore, openStore } from '../store'
import type { Store } from '../store'

/** What every route sees: the Worker's bindings, and what the middleware and handlers keep per request. */
export type AppEnv = {
  Bindings: Env
  Variables: {
    /** The store, once a handler opened it. */
    store: Store | undefined
    requestId: string
    /** The request's log line (lib/http/request-log.ts). */
    log: RequestLog
  }
}

/**
 * The store this request reads, opened on first use: a route that never
 * reads Redis, or a request no route takes, does not depend on its configuration.
 */
export function storeOf(c: Context<AppEnv>): Store {
  let store = c.get('store')
  if (!store) {
    store = openStore(c.env)
    c.set('store', store)
  }
  return store
}

/** The store with 5-second freshness, for the render path (see lib/store/cached.ts). */
export function freshStoreOf(c: Context<AppEnv>): Promise<Store> {
  return openFreshStore(c.env, (p) => c.executionCtx.waitUntil(p))
}
