import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { $ZodIssue } from 'zod/v4/core'
import { MAX_JSON_DEPTH, isObject, nestedDeeperThan, textNestedDeeperThan } from '../json'
import { settingsOf } from './context'
import type { AppEnv } from './context'
import { ServiceError } from '../errors'
import { describeError } from '../log'

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i
/** A member name longer than this is not quoted back in an error. */
const QUOTED_NAME_CHARS = 64

/**
 * MAX_BODY_BYTES (default 1 MiB), checked before the body is read in full:
 * a Content-Length past it is refused before any byte is read, and a body
 * streamed without one as soon as it passes it.
 */
const limitBody: MiddlewareHandler<AppEnv> = (c, next) => {
  const maxSize = settingsOf(c).maxBodyBytes
  const tooLarge = () => {
    throw new ServiceError('PAYLOAD_TOO_LARGE', `the body is larger than MAX_BODY_BYTES (${maxSize} bytes)`)
  }
  return bodyLimit({ maxSize, onError: tooLarge })(c, next)
}

/**
 * Reads a JSON body once, before the route's validator, so that its failures
 * are worded here: 415 when the body is not sent as JSON, 400 naming the
 * fault when it does not parse or nests deeper than MAX_JSON_DEPTH (checked
 * before any validator or clone recurses into it). An empty body is `{}`
 * where every field of the body is optional, and 400 where the body is a
 * record to write.
 */
const jsonInput =
  (required: boolean): MiddlewareHandler =>
  async (c, next) => {
    const type = c.req.header('content-type')
    const text = await c.req.text()
    const empty = text.trim() === ''
    if (empty && required) throw new ServiceError('BAD_REQUEST', 'the body is empty: send the record as JSON')
    if (type ? !JSON_TYPE.test(type) : !empty) {
      const sent = type ? `it was sent as ${type}` : 'it was sent without a Content-Type'
      throw new ServiceError(
        'UNSUPPORTED_MEDIA_TYPE',
        `the body must be JSON with Content-Type: application/json; ${sent}`,
      )
    }
    let body: unknown = {}
    if (!empty) {
      try {
        body = JSON.parse(text)
      } catch (e) {
        throw new ServiceError('BAD_REQUEST', `the body is not valid JSON: ${describeError(e)}`)
      }
    }
    if (!empty && textNestedDeeperThan(text)) {
      throw new ServiceError('BAD_REQUEST', `the body is nested deeper than ${MAX_JSON_DEPTH} levels${whereDeep(body)}`)
    }
    // Hono's json() parses the body's text again on every call, the validator's included: it gets this parse.
    c.req.json = <T>() => Promise.resolve(body as T)
    return next()
  }

/** Every route with a JSON body: its size limit, then its parse. */
export const jsonBody: MiddlewareHandler<AppEnv>[] = [limitBody, jsonInput(false)]
/** A route whose body is a record to write: the same, and an empty body is refused. */
export const recordBody: MiddlewareHandler<AppEnv>[] = [limitBody, jsonInput(true)]

/** ` (in args)`: the member of a body too deep that is, when its name is short enough to quote. */
function whereDeep(body: unknown): string {
  if (!isObject(body)) return ''
  for (const [name, member] of Object.entries(body)) {
    if (name.length <= QUOTED_NAME_CHARS && nestedDeeperThan(member, MAX_JSON_DEPTH - 1)) return ` (in ${name})`
  }
  return ''
}

/** What each request part is called in an answer. */
const PARTS: Readonly<Record<string, string>> = { json: 'body', param: 'path', query: 'query string' }

/**
 * A request part that does not fit its route's schema (lib/http/route.ts):
 * 400 BAD_REQUEST naming each problem and where it is.
 */
export function invalidRequest(target: string, issues: readonly $ZodIssue[]): ServiceError {
  const part = PARTS[target] ?? target
  const problems = issues.map((i) => `${i.path.length ? i.path.join('.') : part}: ${i.message}`)
  return new ServiceError('BAD_REQUEST', `the ${part} is not valid: ${problems.join('; ')}`)
}
