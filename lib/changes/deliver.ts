/**
 * The CHANGE_EVENTS queue's consumer: each message (events.ts) POSTed to
 * its URL, signed with WEBHOOK_SECRET at the time of each attempt, with a
 * timeout, through the egress rules (TOOL_ALLOWED_HOSTS; no redirect is
 * followed). A 2xx acks it; anything else retries it, after the queue's
 * retry_delay (or the receiver's Retry-After, bounded); past max_retries
 * the queue moves it to its dead-letter queue (wrangler.toml, docs/webhooks.md).
 */
import { cancelBody, checkTarget } from '../egress'
import { describeError, log } from '../log'
import { hexOf } from '../store'
import type { ChangeMessage, WebhookSettings } from './webhooks'

/** Bound on one delivery, from the request sent to the answer's headers. */
export const DELIVERY_TIMEOUT_MS = 10_000
/** The longest Retry-After honoured: a receiver may slow its retries, not park them for hours. */
export const MAX_RETRY_AFTER_S = 300

/** Delivers every message of a batch at once (the runtime queues past 6 open connections). */
export async function deliverChangeEvents(batch: MessageBatch<unknown>, webhooks: WebhookSettings): Promise<void> {
  await Promise.all(batch.messages.map((message) => deliver(message, webhooks)))
}

async function deliver(message: Message<unknown>, { secret, policy }: WebhookSettings): Promise<void> {
  const body = messageOf(message.body)
  if (body === undefined) {
    // Not one of ours (or from an older shape): no retry can deliver it.
    log.warn('change event dropped: the message is not {url, body}', { message_id: message.id })
    message.ack()
    return
  }
  const url = new URL(body.url)
  const fields = { message_id: message.id, attempt: message.attempts, origin: url.origin }
  if (secret === undefined) {
    log.warn('change event not delivered: WEBHOOK_SECRET is not set', fields)
    message.retry()
    return
  }
  let response: Response
  try {
    checkTarget(url, policy)
    const t = Math.floor(Date.now() / 1000)
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-signature': await signature(secret, t, body.body),
        'x-delivery-id': message.id,
        'x-delivery-attempt': String(message.attempts),
      },
      body: body.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    })
  } catch (e) {
    log.warn('change event delivery failed', { ...fields, reason: describeError(e) })
    message.retry()
    return
  }
  await cancelBody(response)
  if (response.status >= 200 && response.status < 300) {
    log.info('change event delivered', { ...fields, status: response.status })
    message.ack()
    return
  }
  const delaySeconds = retryAfter(response.headers.get('retry-after'))
  log.warn('change event refused', { ...fields, status: response.status, retry_after_s: delaySeconds })
  // No delay of our own: the queue's retry_delay applies.
  message.retry(delaySeconds === undefined ? undefined : { delaySeconds })
}

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the X-Signature
 * header (docs/webhooks.md verifies it). Signed per attempt, so a
 * receiver may refuse old timestamps without refusing retries.
 */
export async function signature(secret: string, t: number, body: string): Promise<string> {
  const encoder = new TextEncoder()
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ])
  return `t=${t},v1=${hexOf(await crypto.subtle.sign('HMAC', key, encoder.encode(`${t}.${body}`)))}`
}

function messageOf(body: unknown): ChangeMessage | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const { url, body: text } = body as Record<string, unknown>
  if (typeof url !== 'string' || typeof text !== 'string') return undefined
  try {
    new URL(url)
  } catch {
    return undefined
  }
  return { url, body: text }
}

/** Retry-After in seconds (an HTTP date is not worth parsing here), at most MAX_RETRY_AFTER_S. */
function retryAfter(header: string | null): number | undefined {
  if (header === null || !/^\d{1,9}$/.test(header.trim())) return undefined
  return Math.min(Number(header.trim()), MAX_RETRY_AFTER_S)
}
