import type { Context } from 'hono'
import type { Env } from '../env'
import { ServiceError, misconfigured } from '../errors'
import type { RequestLog } from '../log'
import { LABEL_PATTERN, LABEL_RULE, openFreshStore, openStore, withLabel } from '../store'
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
    /** A client error the protocol expects (an MCP client's probe for an event stream): its line is info, not warn. */
    expected: boolean | undefined
  }
}

/**
 * The label this request reads and writes: `?label=NAME`, else the
 * deployment's PROMPT_LABEL, else none (the base). An empty `?label=` asks
 * for the base on a deployment that has a label. Checked before any read.
 */
export function labelOf(c: Context<AppEnv>): string | undefined {
  const asked = c.req.query('label')
  if (asked !== undefined) {
    if (asked === '') return undefined
    if (!LABEL_PATTERN.test(asked)) throw new ServiceError('BAD_REQUEST', `the label ${LABEL_RULE}`)
    c.get('log')?.set('label', asked)
    return asked
  }
  const configured = c.env?.PROMPT_LABEL
  if (!configured) return undefined
  if (!LABEL_PATTERN.test(configured)) throw misconfigured('PROMPT_LABEL', LABEL_RULE)
  c.get('log')?.set('label', configured)
  return configured
}

/**
 * The store this request reads, as its label sees it, opened on first use:
 * a route that never reads Redis, or a request no route takes, does not
 * depend on its configuration.
 */
export function storeOf(c: Context<AppEnv>): Store {
  let store = c.get('store')
  if (!store) {
    store = withLabel(openStore(c.env), labelOf(c))
    c.set('store', store)
  }
  return store
}

/** The store with 5-second freshness (see lib/store/cached.ts), for the render path, as its label sees it. */
export async function freshStoreOf(c: Context<AppEnv>): Promise<Store> {
  const label = labelOf(c)
  return withLabel(await openFreshStore(c.env, waitUntilOf(c)), label)
}

/** The request's waitUntil, looked up when called: work kept alive after the answer (a cache fill, a cancellation). */
export function waitUntilOf(c: Context<AppEnv>): (p: Promise<unknown>) => void {
  return (p) => c.executionCtx.waitUntil(p)
}
