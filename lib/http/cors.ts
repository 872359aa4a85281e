import type { MiddlewareHandler } from 'hono'
import { cors } from 'hono/cors'
import { settingsOf } from './context'
import type { AppEnv } from './context'

/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600

/** The middleware for the last CORS_ORIGINS seen (the setting is the same on every request of a deployment); undefined when it lists none. */
let built: { origins: readonly string[]; middleware: MiddlewareHandler | undefined } | undefined

/**
 * CORS for browsers, when CORS_ORIGINS lists the origins allowed (comma-
 * separated; `*` for any). Mounted before authentication: a preflight
 * carries no credentials, and is answered here, 204, allowing the
 * Authorization and Content-Type headers. An origin not listed gets no
 * Access-Control-Allow-Origin. Unset, no CORS header is ever sent.
 */
export const corsFromEnv: MiddlewareHandler<AppEnv> = (c, next) => {
  const origins = settingsOf(c).corsOrigins
  if (built?.origins !== origins) built = { origins, middleware: corsFor(origins) }
  return built.middleware ? built.middleware(c, next) : next()
}

function corsFor(listed: readonly string[]): MiddlewareHandler | undefined {
  if (listed.length === 0) return undefined
  return cors({
    origin: listed.includes('*') ? '*' : [...listed],
    allowMethods: ['GET', 'HEAD', 'POST'],
    allowHeaders: ['Authorization', 'Content-Type'],
    exposeHeaders: ['X-Request-Id', 'Server-Timing', 'X-Prompt-Version', 'X-Prompt-Label'],
    maxAge: PREFLIGHT_MAX_AGE_S,
  })
}
