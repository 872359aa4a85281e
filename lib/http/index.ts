import type { Context } from 'hono'
import type { Skip } from '../catalog/types'

export { ERROR_STATUS, HttpError } from './errors'
export { onError, unroutedHandler } from './handlers'
export {
  freshStoreOf,
  labelOf,
  renderOptionsOf,
  requestContext,
  settingsOf,
  storeOf,
  waitUntilOf,
  writerOf,
} from './context'
export { LABEL_PATTERN, LABEL_RULE } from '../store'
export type { AppEnv } from './context'
export { jsonBody, recordBody } from './input'
export { changesOf, recordChanges } from './changes'
export type { Made } from './changes'
export { adminAuth, bearerAuth, publisherOf, requireScope } from './auth'
export type { Publisher } from '../publishers'
export { corsFromEnv } from './cors'
export { requestLogger } from './request-log'
export { scheduled } from './scheduled'
export { queue } from './queue'
export * from './openapi'
export { Routes, defineRoute, once } from './route'
export type { RouteDeclaration } from './route'

/** `{"status": "success", "data": ...}`, with `skipped` when the source had records it could not use. */
export function success<T>(c: Context, data: T, skipped: readonly Skip[] = []) {
  const body: { status: 'success'; data: T; skipped?: Skip[] } = { status: 'success', data }
  if (skipped.length > 0) body.skipped = [...skipped]
  return c.json(body, 200)
}

/** A listing's page: success's body, and `next_cursor` (null on the last page). */
export function paged<T>(c: Context, data: T, skipped: readonly Skip[], next: string | null) {
  const body: { status: 'success'; data: T; skipped?: Skip[]; next_cursor: string | null } = {
    status: 'success',
    data,
    next_cursor: next,
  }
  if (skipped.length > 0) body.skipped = [...skipped]
  return c.json(body, 200)
}
