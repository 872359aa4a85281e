import type { Context } from 'hono'
import type { Skip } from '../catalog/types'
import type { Env } from '../env'
import { openStore } from '../store'
import type { Store } from '../store'

export { ServiceError, ERROR_STATUS, notFound } from './errors'
export type { ErrorCode, ErrorStatus } from './errors'
export { onError, unroutedHandler } from './handlers'

/** What every route sees: the Worker's bindings, and the store once a handler opened it. */
export type AppEnv = {
  Bindings: Env
  Variables: { store: Store | undefined }
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

/** `{"status": "success", "data": ...}`, with `skipped` when the source had records it could not use. */
export function success(c: Context, data: unknown, skipped: readonly Skip[] = []): Response {
  return c.json(skipped.length > 0 ? { status: 'success', data, skipped } : { status: 'success', data })
}
