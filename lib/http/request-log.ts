import type { MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import { RequestLog } from '../log'
import { withSecretsOf } from '../redact'
import { settingsOf, staleSecondsOf } from './context'
import type { AppEnv } from './context'

/** An id a caller may choose, so that its own logs and ours can be joined; anything else is replaced. */
const CALLER_ID = /^[\w.:@-]{1,128}$/

/**
 * The request's one log line and its id. The id is the caller's
 * `X-Request-Id` when it is a plausible one, else a new UUID, and is echoed
 * in the answer's `X-Request-Id`. The line is written when the answer is
 * ready, with what the handlers and lib/ added on the way (lib/log.ts);
 * LOG_DEBUG=true adds the args and the rendered prompt. The request's scope
 * also holds the Worker's secrets, which whatever it says is redacted of.
 */
export const requestLogger: MiddlewareHandler<AppEnv> = (c, next) =>
  withSecretsOf(settingsOf(c).secrets, () => logged(c, next))

const logged: MiddlewareHandler<AppEnv> = async (c, next) => {
  const given = c.req.header('x-request-id')
  const requestId = given && CALLER_ID.test(given) ? given : crypto.randomUUID()
  const debug = settingsOf(c).logDebug
  // The line cuts every string it carries (lib/log.ts): a path of 100 KB makes no line of 100 KB.
  const record = new RequestLog({ request_id: requestId, method: c.req.method, path: c.req.path }, debug)
  c.set('requestId', requestId)
  c.set('log', record)
  const started = Date.now()
  // Set now, it goes into the answer as the answer is made; set on an answer already made, it copies that answer.
  c.header('X-Request-Id', requestId)
  await record.run(next)
  // An answer made as a Response of its own, not through the context, has it only this way.
  if (!c.res.headers.has('x-request-id')) c.header('X-Request-Id', requestId)
  const status = c.res.status
  // An answer from last good copies (Redis failing) is a warning: the line says how old they were.
  const staleS = c.res.ok ? await staleSecondsOf(c) : undefined
  const level =
    status >= 500 ? 'error' : (status >= 400 && !c.get('expected')) || staleS !== undefined ? 'warn' : 'info'
  record.write(level, {
    route: routeOf(c),
    status,
    duration_ms: Date.now() - started,
    ...(staleS === undefined ? {} : { stale_s: staleS }),
  })
}

/** The pattern of the route that answered (`/api/prompts/:prompt_id/render`); null when none did. */
function routeOf(c: Parameters<MiddlewareHandler>[0]): string | null {
  const handler = matchedRoutes(c).findLast((r) => r.method !== 'ALL')
  return handler?.path ?? null
}
