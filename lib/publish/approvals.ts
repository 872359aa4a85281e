import { ServiceError } from '../errors'
import { isObject } from '../json'
import { ROOT, hexDigest } from '../store'
import type { CommandStore, Store } from '../store'
import { promote } from './promote'
import { writable } from './write'

/**
 * Promote requests (PROMOTE_APPROVALS): a promote asked for is kept, by
 * number, until a publisher other than its author approves it. Kept per
 * label in one hash outside the records' prefixes (reconcile and the record
 * index see only records), numbered by a counter beside it that is never
 * reset, so that a number never names two requests.
 */

/** A promote waiting for approval. */
export interface PromoteRequest {
  request: number
  label: string
  /** The target label; null for the base. */
  to: string | null
  message: string | null
  force: boolean
  /** The publisher who asked. */
  by: string
  at: string
  /** SHA-256 of what the promotion would write when asked: an approval carries out that promotion, no other. */
  plan: string
}

/** Requests one label may have waiting at once; past it, 422 LIMIT_EXCEEDED. */
export const MAX_PROMOTE_REQUESTS = 20

/** Adds the request unless the label has MAX_PROMOTE_REQUESTS waiting, in one step: its number, or 0 when full. */
const ADD_SCRIPT = `
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
local n = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], tostring(n), ARGV[2])
return n
`

// The stores queue GET, LRANGE, LINDEX and EVAL in a transaction: a hash is read and trimmed by script.
const GET_SCRIPT = `return redis.call('HGET', KEYS[1], ARGV[1])`
const CLOSE_SCRIPT = `return redis.call('HDEL', KEYS[1], ARGV[1])`

function keysOf(label: string): { requests: string; seq: string } {
  const requests = `${ROOT}promote-requests:${label}`
  return { requests, seq: `${requests}:seq` }
}

/** Keeps a promote of `label` to be approved; 409 CONFLICT when the label changes nothing. */
export async function requestPromote(
  store: Store,
  label: string,
  asked: { to?: string | undefined; message?: string | undefined; force: boolean; by: string },
): Promise<PromoteRequest> {
  const commands = writable(store)
  const plan = await planDigest(commands, label, asked.to)
  // Its number is the field it is kept at.
  const request: Omit<PromoteRequest, 'request'> = {
    label,
    to: asked.to ?? null,
    message: asked.message ?? null,
    force: asked.force,
    by: asked.by,
    at: new Date().toISOString(),
    plan,
  }
  const { requests, seq } = keysOf(label)
  const [reply] = await commands.transaction(
    [['EVAL', ADD_SCRIPT, '2', requests, seq, String(MAX_PROMOTE_REQUESTS), JSON.stringify(request)]],
    true,
  )
  const n = Number(result(reply, label))
  if (n === 0) {
    throw new ServiceError(
      'LIMIT_EXCEEDED',
      `label '${label}' has ${MAX_PROMOTE_REQUESTS} promote requests waiting (MAX_PROMOTE_REQUESTS): approve one first`,
      { extra: { limit: 'MAX_PROMOTE_REQUESTS' } },
    )
  }
  return { ...request, request: n }
}

/** Request `n` of `label`, waiting; 404 NOT_FOUND when there is none (never asked, or carried out). */
export async function promoteRequest(store: Store, label: string, n: number): Promise<PromoteRequest> {
  const [reply] = await writable(store).transaction(
    [['EVAL', GET_SCRIPT, '1', keysOf(label).requests, String(n)]],
    false,
  )
  const text = result(reply, label)
  const request = typeof text === 'string' ? parsed(text) : undefined
  if (!request) throw new ServiceError('NOT_FOUND', `label '${label}' has no promote request ${n} waiting`)
  return { ...request, request: n }
}

/**
 * 409 CONFLICT unless promoting `request.label` would still write what it
 * would when the request was made: the approver approves what was asked.
 */
export async function checkPlan(store: Store, request: PromoteRequest): Promise<void> {
  const now = await planDigest(writable(store), request.label, request.to ?? undefined)
  if (now !== request.plan) {
    throw new ServiceError(
      'CONFLICT',
      `label '${request.label}' or its target changed after promote request ${request.request} was made: ask for a promote again`,
    )
  }
}

/** Removes request `n` of `label` once carried out. */
export async function closePromoteRequest(store: Store, label: string, n: number): Promise<void> {
  const [reply] = await writable(store).transaction(
    [['EVAL', CLOSE_SCRIPT, '1', keysOf(label).requests, String(n)]],
    true,
  )
  result(reply, label)
}

/** What promoting `label` onto `to` would write, as one digest; 409 CONFLICT when it writes nothing. */
async function planDigest(store: Store & CommandStore, label: string, to: string | undefined): Promise<string> {
  const promotions = await promote(store, label, { to, dryRun: true, historyLimit: 1 })
  if (promotions.length === 0) throw new ServiceError('CONFLICT', `label '${label}' has nothing to promote`)
  return hexDigest('SHA-256', JSON.stringify(promotions.map(({ key, before, after }) => [key, before, after])))
}

function result(reply: { result?: unknown; error?: string } | undefined, label: string): unknown {
  if (reply?.error !== undefined) {
    throw new ServiceError('CONFLICT', `the promote requests of label '${label}' hold something else: ${reply.error}`)
  }
  return reply?.result ?? null
}

function parsed(text: string): PromoteRequest | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) && typeof value.label === 'string' && typeof value.by === 'string'
      ? (value as unknown as PromoteRequest)
      : undefined
  } catch {
    return undefined
  }
}
