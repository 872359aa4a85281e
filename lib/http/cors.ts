import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import type { AppEnv } from './context'
import { misconfigured } from '../errors'

/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600

/** The middleware for the last CORS_ORIGINS seen (the variable is the same on every request of a deployment); undefined when it lists none. */
let built: { origins: string; middleware: MiddlewareHandler | undefined } | undefined

/**
 * CORS for browsers, when CORS_ORIGINS lists the origins allowed (comma-
 * separated; `*` for any). Mounted before authentication: a preflight
 * carries no credentials, and is answered here, 204, allowing the
 * Authorization and Content-Type headers. An origin not listed gets no
 * Access-Control-Allow-Origin. Unset, no CORS header is ever sent.
 */
export const corsFromEnv: MiddlewareHandler<AppEnv> = (c, next) => {
  const origins = c.env?.CORS_ORIGINS ?? ''
  if (built?.origins !== origins) built = { origins, middleware: corsFor(origins) }
  return built.middleware ? built.middleware(c, next) : next()
}

function corsFor(origins: string): MiddlewareHandler | undefined {
  const listed = origins
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map(originOf)
  if (listed.length === 0) return undefined
  return cors({
    origin: listed.includes('*') ? '*' : listed,
    allowMethods: ['GET', 'HEAD', 'POST'],
    allowHeaders: ['Authorization', 'Content-Type'],
    exposeHeaders: ['X-Request-Id', 'Server-Timing', 'X-Prompt-Version', 'X-Prompt-Label'],
    maxAge: PREFLIGHT_MAX_AGE_S,
  })
}

/**
 * An entry as browsers send it in `Origin` (`https://app.example`, lower case, no path): written with a
 * trailing slash or capitals it would never match. An entry that names no origin is a setting to fix.
 */
function originOf(entry: string): string {
  if (entry === '*') return entry
  let url: URL | undefined
  try {
    url = new URL(entry)
  } catch {
    url = undefined
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw misconfigured('CORS_ORIGINS', `must list origins like https://app.example, got '${entry.slice(0, 40)}'`)
  }
  return url.origin
}
