import type { Context, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import { TrieRouter } from 'hono/router/trie-router'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { describeError, requestLog } from '../log'
import { ServiceError } from '../errors'
import { openaiError } from '../openai'
import type { ErrorCode } from '../errors'
import { redact } from '../redact'
import { ERROR_STATUS, HttpError } from './errors'

/**
 * `{"status": "error", "code": ..., "message": ...}`: the one error body. The
 * message may quote an upstream, which may have echoed a secret of ours.
 */
function errorBody(code: ErrorCode, message: string, extra?: Record<string, unknown>) {
  return { status: 'error' as const, code, message: redact(message), ...extra }
}

/** The error answer: the one error body, in OpenAI's shape under /v1 (whose clients read nothing else). */
function errorAnswer(
  c: Context,
  body: ReturnType<typeof errorBody>,
  status: ContentfulStatusCode,
  headers?: Record<string, string>,
) {
  const openai = c.req.path === '/v1' || c.req.path.startsWith('/v1/')
  return c.json(openai ? openaiError(status, body) : body, status, headers)
}

/**
 * The app's only error handler: every failure, expected or not, becomes a
 * JSON error body here, and the request's log line says which. Unexpected
 * errors are logged with their stack and answered without internals.
 */
export function onError(err: Error, c: Context): Response {
  const record = requestLog()
  if (err instanceof ServiceError) {
    const status = ERROR_STATUS[err.code]
    const headers = err instanceof HttpError ? err.headers : undefined
    // A client error's message quotes what the client sent (args, a body), and a sensitive one can quote
    // args or rendered text: the line gets those only under LOG_DEBUG, and a client error only its code.
    const logged = status >= 500 && !err.sensitive
    const cause = err.cause === undefined ? undefined : describeError(err.cause)
    const said = logged ? { message: err.message, cause } : {}
    record?.set('error', { code: err.code, ...placeOf(err.extra), ...said })
    if (!logged) record?.debug({ error_message: err.message })
    // INTERNAL is a bug whatever threw it: its details are for the log, never for the caller.
    if (err.code === 'INTERNAL') return internal(c, headers)
    return errorAnswer(c, errorBody(err.code, err.message, err.extra), status, headers)
  }
  if (err instanceof HTTPException) {
    // Raised by Hono's own middleware (malformed input).
    const status = err.status as ContentfulStatusCode
    const code = codeForStatus(status)
    record?.set('error', { code, message: err.message })
    if (code === 'INTERNAL') return internal(c)
    return errorAnswer(c, errorBody(code, err.message || 'request rejected'), status)
  }
  record?.set('error', { code: 'INTERNAL', message: describeError(err), stack: err.stack })
  return internal(c)
}

function internal(c: Context, headers?: Record<string, string>): Response {
  return errorAnswer(c, errorBody('INTERNAL', 'internal error'), 500, headers)
}

/** The fields of an error that say where it happened (or which setting is wrong), never what was in the request there. */
function placeOf(extra: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!extra) return {}
  return Object.fromEntries(
    Object.entries(extra).filter(([key]) =>
      ['template', 'line', 'column', 'variable', 'limit', 'setting'].includes(key),
    ),
  )
}

function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'UNAUTHORIZED'
  if (status === 404) return 'NOT_FOUND'
  if (status === 405) return 'METHOD_NOT_ALLOWED'
  if (status === 413) return 'PAYLOAD_TOO_LARGE'
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE'
  return status < 500 ? 'BAD_REQUEST' : 'INTERNAL'
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const

/**
 * Answers a request no route took: 405 with `Allow` when the path is served
 * under other methods, 404 otherwise. It reads the app's own route table, so
 * every route gets its 405 without declaring one.
 */
export function unroutedHandler(app: {
  readonly routes: readonly { method: string; path: string }[]
}): NotFoundHandler {
  let router: TrieRouter<string> | undefined
  return (c) => {
    if (!router) {
      router = new TrieRouter<string>()
      // Middleware is registered as ALL and answers no method by itself.
      for (const route of app.routes) if (route.method !== 'ALL') router.add(route.method, route.path, route.method)
    }
    const routes = router
    const allowed = METHODS.filter((m) => routes.match(m === 'HEAD' ? 'GET' : m, c.req.path)[0].length > 0)
    // Answered here rather than thrown: where no route matched, a throw would leave the request's middleware.
    if (allowed.length === 0)
      return onError(new ServiceError('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`), c)
    const allow = allowed.join(', ')
    const message = `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow}`
    return onError(new HttpError('METHOD_NOT_ALLOWED', message, { Allow: allow }), c)
  }
}
