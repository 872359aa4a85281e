/**
 * WEBHOOK_URLS and WEBHOOK_SECRET as lib/settings.ts reads them: kept apart
 * from the events (events.ts) so that the settings load nothing more.
 */
import { checkTarget, EgressError } from '../egress'
import type { EgressPolicy } from '../egress'
import { misconfigured } from '../errors'

/** URLs WEBHOOK_URLS may list: each change is one queue message per URL. */
export const MAX_WEBHOOK_URLS = 10
/** Characters of one WEBHOOK_URLS entry. */
export const MAX_WEBHOOK_URL_CHARS = 2048
/** One queue message: one event for one URL, its body serialized once so every attempt signs the same bytes. */
export interface ChangeMessage {
  url: string
  body: string
}

/** WEBHOOK_URLS, WEBHOOK_SECRET and the CHANGE_EVENTS binding: where events go and how they are signed. */
export interface WebhookSettings {
  /** WEBHOOK_URLS, each checked against the egress rules; empty when unset (no events are sent). */
  readonly urls: readonly string[]
  /** WEBHOOK_SECRET: the key of each event's X-Signature; set whenever urls is not empty. */
  readonly secret: string | undefined
  /** The CHANGE_EVENTS queue; unbound, no events are sent. */
  readonly queue: Queue<ChangeMessage> | undefined
  /** TOOL_ALLOWED_HOSTS: the hosts a delivery may reach, as a tool call's. */
  readonly policy: EgressPolicy
}

/**
 * WEBHOOK_URLS parsed: comma-separated http(s) URLs, at most
 * MAX_WEBHOOK_URLS, each allowed by TOOL_ALLOWED_HOSTS. A bad one is
 * MISCONFIGURED naming the setting (and the entry, which is no secret).
 */
export function parseWebhookUrls(raw: string | undefined, policy: EgressPolicy): string[] {
  const entries = (raw ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
  if (entries.length > MAX_WEBHOOK_URLS) {
    throw misconfigured('WEBHOOK_URLS', `lists ${entries.length} URLs, more than ${MAX_WEBHOOK_URLS}`)
  }
  return entries.map((entry) => {
    if (entry.length > MAX_WEBHOOK_URL_CHARS) {
      throw misconfigured('WEBHOOK_URLS', `has a URL longer than ${MAX_WEBHOOK_URL_CHARS} characters`)
    }
    let url: URL
    try {
      url = new URL(entry)
    } catch {
      throw misconfigured('WEBHOOK_URLS', `has '${entry.slice(0, 80)}', which is not a URL`)
    }
    try {
      checkTarget(url, policy)
    } catch (e) {
      if (e instanceof EgressError) throw misconfigured('WEBHOOK_URLS', `has ${url.origin}, and ${e.message}`)
      throw e
    }
    return url.href
  })
}
