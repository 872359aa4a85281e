import type { Context, MiddlewareHandler } from 'hono'
import { ServiceError, writesNeedRedis } from '../errors'
import { log } from '../log'
import { ADMIN, holds } from '../publishers'
import type { Publisher } from '../publishers'
import type { Settings } from '../settings'
import { hexDigest } from '../store'
import { settingsOf } from './context'
import type { AppEnv } from './context'
import { HttpError } from './errors'

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="ai-prompt-shell"' }

/** Whether this isolate has said that the API is open; said once, not per request. */
let openNoticeGiven = false

/**
 * API_TOKEN, when set, guards what it is mounted on: the request needs
 * `Authorization: Bearer <API_TOKEN>` (a publisher's token, ADMIN_TOKEN's
 * included, may read too), else 401 UNAUTHORIZED. Unset, the API is open,
 * and the first request of each isolate says so in its log line.
 */
export const bearerAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const settings = settingsOf(c)
  if (!settings.apiToken) {
    if (!openNoticeGiven) {
      openNoticeGiven = true
      log.warn('API_TOKEN is unset: /api/* and /v1/* are open to anyone who can reach the service')
    }
    return next()
  }
  const given = bearerToken(c, 'this API')
  // PUBLISHERS is read only when the reader's token is not API_TOKEN: a bad one fails no plain read.
  if (!(await sameSecret(given, settings.apiToken)) && !(await publisherFor(given, settings))) throw invalidToken()
  return next()
}

/**
 * Writes: enabled only on Redis (the embedded store is read-only: 403
 * WRITES_DISABLED saying so, whatever the token) and when there is a
 * publisher (the secret ADMIN_TOKEN or PUBLISHERS; else 403
 * WRITES_DISABLED), and then only with a publisher's bearer token (else
 * 401, whatever API_TOKEN says). The publisher is the request's from then
 * on (publisherOf); what it may do, each route asks (requireScope).
 */
export const adminAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const settings = settingsOf(c)
  if (!settings.redis) throw writesNeedRedis()
  if (!settings.adminToken && settings.publishers.length === 0) {
    throw new ServiceError(
      'WRITES_DISABLED',
      'writes are disabled on this deployment: set the secret ADMIN_TOKEN or PUBLISHERS',
    )
  }
  const publisher = await publisherFor(bearerToken(c, 'writing'), settings)
  if (!publisher) throw invalidToken()
  c.set('publisher', publisher)
  c.get('log')?.set('by', publisher.name)
  return next()
}

/** The publisher of a request adminAuth let through. */
export function publisherOf(c: Context<AppEnv>): Publisher {
  const publisher = c.get('publisher')
  if (!publisher) throw new ServiceError('INTERNAL', 'a route asked for its publisher without adminAuth before it')
  return publisher
}

/** 403 FORBIDDEN, naming the scope, unless the request's publisher holds `scope` (lib/publishers.ts holds). */
export function requireScope(c: Context<AppEnv>, scope: string): void {
  const publisher = publisherOf(c)
  if (!holds(publisher, scope)) {
    throw new ServiceError('FORBIDDEN', `publisher '${publisher.name}' lacks the scope '${scope}'`, {
      extra: { scope },
    })
  }
}

/** The request's bearer token; else 401 saying what is wrong with the header. */
function bearerToken(c: Context, what: string): string {
  const header = c.req.header('authorization')
  const given = header === undefined ? undefined : /^Bearer +(.+)$/i.exec(header)?.[1]?.trim()
  if (given === undefined) {
    const why = header === undefined ? 'no Authorization header' : 'the Authorization header is not "Bearer <token>"'
    throw new HttpError('UNAUTHORIZED', `${what} needs a bearer token: ${why}`, CHALLENGE)
  }
  return given
}

function invalidToken(): HttpError {
  return new HttpError('UNAUTHORIZED', 'the bearer token is not valid', CHALLENGE)
}

/**
 * The publisher whose token `given` is: ADMIN_TOKEN's (`admin`), or the
 * PUBLISHERS entry whose token_sha256 is its SHA-256. Every entry is
 * compared, each without an early exit: the time says nothing of which
 * matched, or how closely.
 */
async function publisherFor(given: string, settings: Settings): Promise<Publisher | undefined> {
  const { adminToken, publishers } = settings
  const admin = adminToken !== undefined && (await sameSecret(given, adminToken))
  if (publishers.length === 0) return admin ? ADMIN : undefined
  const digest = await hexDigest('SHA-256', given)
  let found: Publisher | undefined
  for (const publisher of publishers) {
    if (sameHex(digest, publisher.tokenSha256)) found = { name: publisher.name, scopes: publisher.scopes }
  }
  return admin ? ADMIN : found
}

/** Two hex digests of one length, compared without an early exit. */
function sameHex(a: string, b: string): boolean {
  let difference = a.length ^ b.length
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
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
