import type { Context, Handler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { describeError, log } from '../log'
import { ServiceError } from './errors'
import type { ErrorCode } from './errors'

/** `{"status": "error", "code": ..., "message": ...}`: the one error body. */
function errorBody(code: ErrorCode, message: string, extra?: Record<string, unknown>) {
  return { status: 'error' as const, code, message, ...extra }
}

/**
 * The app's only error handler: every failure, expected or not, becomes a
 * JSON error body here. Unexpected errors are logged with their stack and
 * answered without internals.
 */
export function onError(err: Error, c: Context): Response {
  if (err instanceof ServiceError) {
    if (err.status >= 500)
      log.error(err.message, { code: err.code, cause: err.cause === undefined ? undefined : describeError(err.cause) })
    return c.json(errorBody(err.code, err.message, err.extra), err.status, err.headers)
  }
  if (err instanceof HTTPException) {
    // Raised by Hono's own middleware (body limits, malformed input).
    const status = err.status as ContentfulStatusCode
    return c.json(errorBody(codeForStatus(status), err.message || 'request rejected'), status)
  }
  log.error('unhandled error', { error: describeError(err), stack: err.stack, path: c.req.path })
  return c.json(errorBody('INTERNAL', 'internal error'), 500)
}

function codeForStatus(status: number): ErrorCode {
  if (status === 401) return 'UNAUTHORIZED'
  if (status === 404) return 'NOT_FOUND'
  if (status === 405) return 'METHOD_NOT_ALLOWED'
  return status < 500 ? 'BAD_REQUEST' : 'INTERNAL'
}

export const notFoundRoute = (c: Context): Response =>
  c.json(errorBody('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`), 404)

/** A handler for the other methods of a route: 405 with the Allow header. */
export function methodNotAllowed(...allowed: string[]): Handler {
  const allow = allowed.join(', ')
  return (c) => {
    throw new ServiceError('METHOD_NOT_ALLOWED', `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow}`, {
      headers: { Allow: allow },
    })
  }
}
