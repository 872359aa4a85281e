import type { MiddlewareHandler } from 'hono'
import type { z } from 'zod'
import { ServiceError } from './errors'

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i

/**
 * Checks a JSON body before the route's validator reads it, so that its
 * failures are worded here: 415 when the body is not sent as JSON, 400
 * naming the fault when it does not parse. An empty body is `{}` (every
 * field of our bodies is optional): with a JSON Content-Type, Hono's cached
 * text becomes `{}`, which the validator then reads; without one, the
 * validator takes `{}` itself.
 */
export const jsonInput: MiddlewareHandler = async (c, next) => {
  const type = c.req.header('content-type')
  const text = await c.req.text()
  const empty = text.trim() === ''
  if (type ? !JSON_TYPE.test(type) : !empty) {
    const sent = type ? `it was sent as ${type}` : 'it was sent without a Content-Type'
    throw new ServiceError(
      'UNSUPPORTED_MEDIA_TYPE',
      `the body must be JSON with Content-Type: application/json; ${sent}`,
    )
  }
  if (empty) {
    // Hono keeps promises in its body cache, though its type says otherwise.
    if (type) c.req.bodyCache.text = Promise.resolve('{}') as unknown as string
    return next()
  }
  try {
    JSON.parse(text)
  } catch (e) {
    throw new ServiceError('BAD_REQUEST', `the body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`)
  }
  return next()
}

/**
 * The routes' validation hook: a request that does not fit its schema is
 * 400 BAD_REQUEST naming each problem and where it is.
 */
export function validationHook(result: { success: boolean; target: string; error?: z.ZodError }): void {
  if (result.success || !result.error) return
  const part = result.target === 'json' ? 'body' : result.target
  const problems = result.error.issues.map((i) => `${i.path.length ? i.path.join('.') : part}: ${i.message}`)
  throw new ServiceError('BAD_REQUEST', `the ${part} is not valid: ${problems.join('; ')}`)
}
