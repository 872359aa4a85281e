import type { Context } from 'hono'
import type { z } from 'zod'
import type { Skip } from '../catalog/types'
import type { Env } from '../env'
import { openFreshStore, openStore } from '../store'
import { ServiceError } from './errors'
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

/** The store with 5-second freshness, for the render path (see lib/store/cached.ts). */
export function freshStoreOf(c: Context<AppEnv>): Promise<Store> {
  return openFreshStore(c.env, (p) => c.executionCtx.waitUntil(p))
}

/**
 * The request's JSON body, checked against `schema`: 400 BAD_REQUEST naming
 * what is wrong when it is not JSON or does not fit. An empty body is `{}`.
 */
export async function jsonBody<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  const text = await c.req.text()
  let body: unknown = {}
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text)
    } catch (e) {
      throw new ServiceError('BAD_REQUEST', `the body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  const parsed = schema.safeParse(body)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'body'}: ${i.message}`)
    throw new ServiceError('BAD_REQUEST', `the body is not valid: ${problems.join('; ')}`)
  }
  return parsed.data
}
