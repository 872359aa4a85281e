import type { Context, MiddlewareHandler } from 'hono'
import type { Env } from '../env'
import { ServiceError } from '../errors'
import type { RequestLog } from '../log'
import type { Publisher } from '../publishers'
import type { RenderOptions } from '../render'
import { settingsFrom } from '../settings'
import type { Settings } from '../settings'
import { LABEL_PATTERN, LABEL_RULE, openFreshStore, openStore, staleOf, withLabel } from '../store'
import type { Store } from '../store'

/** What every route sees: the Worker's bindings, and what the middleware and handlers keep per request. */
export type AppEnv = {
  Bindings: Env
  Variables: {
    /** The Worker's settings (lib/settings.ts), each parsed when first read. */
    settings: Settings
    /** The store, once a handler opened it. */
    store: Store | undefined
    /** The store with 5-second freshness, once a handler opened it. */
    freshStore: Promise<Store> | undefined
    requestId: string
    /** The publisher adminAuth found the request's token to be. */
    publisher: Publisher | undefined
    /** The request's log line (lib/http/request-log.ts). */
    log: RequestLog
    /** A client error the protocol expects (an MCP client's probe for an event stream): its line is info, not warn. */
    expected: boolean | undefined
  }
}

/**
 * The request's context, mounted first: its settings, from which the
 * accessors below open its store (as its label sees it), its writer and its
 * render options, each when a handler first asks. Nothing is parsed here:
 * a bad setting fails only the requests that read it.
 */
export const requestContext: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set('settings', settingsFrom(c.env))
  await next()
  // Whatever route answered from last good copies says so, and how old the oldest was; a failure says its own.
  const staleS = c.res.ok ? await staleSecondsOf(c) : undefined
  if (staleS !== undefined) c.header('X-Prompt-Stale', String(staleS))
}

/** The request's settings. */
export function settingsOf(c: Context<AppEnv>): Settings {
  return c.get('settings') ?? settingsFrom(c.env)
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
  const configured = settingsOf(c).promptLabel
  if (configured !== undefined) c.get('log')?.set('label', configured)
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
    store = withLabel(openStore(settingsOf(c).redis), labelOf(c))
    c.set('store', store)
  }
  return store
}

/** The store with 5-second freshness (see lib/store/cached.ts), for the render path, as its label sees it. */
export function freshStoreOf(c: Context<AppEnv>): Promise<Store> {
  let store = c.get('freshStore')
  if (!store) {
    const label = labelOf(c)
    const settings = settingsOf(c)
    store = openFreshStore(settings.redis, waitUntilOf(c), settings.stale).then((fresh) => withLabel(fresh, label))
    c.set('freshStore', store)
  }
  return store
}

/**
 * The age in whole seconds of the oldest last good copy this request was
 * answered from while Redis failed (lib/store/stale.ts); undefined when none was.
 */
export async function staleSecondsOf(c: Context<AppEnv>): Promise<number | undefined> {
  const fresh = c.get('freshStore')
  const store = fresh && (await fresh.catch(() => undefined))
  const ageMs = store && staleOf(store)?.ageMs
  return ageMs === undefined ? undefined : Math.floor(ageMs / 1000)
}

/** The store writes go to: Redis itself, no cache, no label (a write names its label itself). */
export function writerOf(c: Context<AppEnv>): Store {
  return openStore(settingsOf(c).redis)
}

/** The render options the settings give, with the request's waitUntil (a call's cancellation outlives the answer). */
export function renderOptionsOf(c: Context<AppEnv>): RenderOptions {
  const { render } = settingsOf(c)
  return { ...render, tools: { ...render.tools, waitUntil: waitUntilOf(c) } }
}

/** The request's waitUntil, looked up when called: work kept alive after the answer (a cache fill, a cancellation). */
export function waitUntilOf(c: Context<AppEnv>): (p: Promise<unknown>) => void {
  return (p) => c.executionCtx.waitUntil(p)
}
