import type { Context } from 'hono'
import type { Skip } from '../catalog/types'
import type { Env } from '../env'
import type { Store } from '../store'

export { ServiceError, ERROR_STATUS, notFound, isServiceError } from './errors'
export type { ErrorCode, ErrorStatus } from './errors'
export { onError, unroutedHandler } from './handlers'

/** What every route sees: the Worker's bindings, and the store this request reads. */
export type AppEnv = {
  Bindings: Env
  Variables: { store: Store }
}

/** `{"status": "success", "data": ...}`, with `skipped` when the source had records it could not use. */
export function success(c: Context, data: unknown, skipped: readonly Skip[] = []): Response {
  return c.json(skipped.length > 0 ? { status: 'success', data, skipped } : { status: 'success', data })
}
