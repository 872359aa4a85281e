import type { Context, MiddlewareHandler } from 'hono'
import { ServiceError, writesNeedRedis } from '../errors'
import { log } from '../log'
import { settingsOf } from './context'
import type { AppEnv } from './context'
import { HttpError } from './errors'

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="ai-prompt-shell"' }

/** Whether this isolate has said that the API is open; said once, not per request. */
let openNoticeGiven = false

/**
 * API_TOKEN, when set, guards what it is mounted on: the request needs
 * `Authorization: Bearer <API_TOKEN>` (ADMIN_TOKEN, which may write, may
 * read too), else 401 UNAUTHORIZED. Unset, the API is open, and the first
 * request of each isolate says so in its log line.
 */
export const bearerAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { apiToken, adminToken } = settingsOf(c)
  if (!apiToken) {
    if (!openNoticeGiven) {
      openNoticeGiven = true
      log.warn('API_TOKEN is unset: /api/* and /v1/* are open to anyone who can reach the service')
    }
    return next()
  }
  await requireToken(c, 'this API', [apiToken, adminToken])
  return next()
}

/**
 * Writes: enabled only on Redis (the embedded store is read-only: 403
 * WRITES_DISABLED saying so, whatever the token) and when the secret
 * ADMIN_TOKEN is set (else 403 WRITES_DISABLED), and then only with
 * `Authorization: Bearer <ADMIN_TOKEN>` (else 401, whatever API_TOKEN says).
 */
export const adminAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { adminToken, redis } = settingsOf(c)
  if (!redis) throw writesNeedRedis()
  if (!adminToken) {
    throw new ServiceError('WRITES_DISABLED', 'writes are disabled on this deployment: set the secret ADMIN_TOKEN')
  }
  await requireToken(c, 'writing', [adminToken])
  return next()
}

/** Passes when the request's bearer token is one of `accepted` (unset ones accept nothing); else 401. */
async function requireToken(c: Context, what: string, accepted: readonly (string | undefined)[]): Promise<void> {
  const header = c.req.header('authorization')
  const given = header === undefined ? undefined : /^Bearer +(.+)$/i.exec(header)?.[1]?.trim()
  if (given === undefined) {
    const why = header === undefined ? 'no Authorization header' : 'the Authorization header is not "Bearer <token>"'
    throw new HttpError('UNAUTHORIZED', `${what} needs a bearer token: ${why}`, CHALLENGE)
  }
  const matches = await Promise.all(accepted.map((secret) => (secret ? sameSecret(given, secret) : false)))
  if (!matches.includes(true)) throw new HttpError('UNAUTHORIZED', 'the bearer token is not valid', CHALLENGE)
}

/**
 * Compares two secrets in time that depends on neither: both are hashed
 * first, so lengths do not show, and the digests are compared without an
 * early exit.
 */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const encoder = new TextEncoder()
  const digest = async (s: string) => new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(s)))
  const [x, y] = await Promise.all([digest(a), digest(b)])
  let difference = 0
  x.forEach((byte, i) => {
    difference |= byte ^ (y[i] as number)
  })
  return difference === 0
}
