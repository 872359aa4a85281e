/**
 * Change events: each change (change.ts) as the JSON event a webhook
 * receives, with the prompts it affects, queued once per WEBHOOK_URLS URL
 * on the CHANGE_EVENTS queue. The queue's consumer (deliver.ts) signs and
 * POSTs each one, so a slow or failing receiver never slows a write.
 */
import { promptsAffected } from '../prompt-tests'
import type { ChangedRecord } from '../prompt-tests'
import { LabeledStore } from '../store'
import type { Store } from '../store'
import type { Change } from './change'
import type { ChangeMessage, WebhookSettings } from './webhooks'

/** Prompt ids one event lists in affected_prompts; past it, `affected_truncated: true`. */
export const MAX_AFFECTED_PROMPTS = 100
/** Bytes of one event's body (the queue takes 128 KB a message): affected_prompts is cut to fit. */
export const MAX_EVENT_BYTES = 32 * 1024
/** Bytes of one sendBatch: the queue takes 100 messages and 256 KB a batch. */
const MAX_BATCH_BYTES = 200 * 1024
const MAX_BATCH_MESSAGES = 100

/** What a receiver gets: the change, and the prompts whose text or whose inputs it changed. */
export interface ChangeEvent extends Change {
  affected_prompts: string[]
  affected_truncated?: true
}

/**
 * Queues the events of `changes`, one message per event and URL; does
 * nothing without WEBHOOK_URLS or the CHANGE_EVENTS binding. `store` is the
 * base store (a change's label is its view). Throws what the queue or the
 * analysis throws: the caller logs it, never failing the write it reports.
 */
export async function sendChangeEvents(
  webhooks: WebhookSettings,
  store: Store,
  changes: readonly Change[],
): Promise<void> {
  const { queue, urls } = webhooks
  if (queue === undefined || urls.length === 0 || changes.length === 0) return
  const bodies = await Promise.all(changes.map(async (change) => eventBody(change, await affectedBy(store, change))))
  const messages = bodies.flatMap((body) => urls.map((url) => ({ body: { url, body }, contentType: 'json' as const })))
  for (const batch of batches(messages)) await queue.sendBatch(batch)
}

/**
 * The prompts a change affects as its label sees the catalogue: a prompt
 * changed is one (deleted or not, with no listing needed), and an
 * extension's, environ's or tool's change is looked up in the template analysis.
 */
async function affectedBy(store: Store, change: Change): Promise<{ ids: string[]; complete: boolean }> {
  if (change.kind === 'prompts') return { ids: [change.id], complete: true }
  const view = change.label === null ? store : new LabeledStore(store, change.label)
  const changed: ChangedRecord = { kind: change.kind, id: change.id }
  return promptsAffected(view, [changed])
}

/** The event's JSON, affected_prompts cut to MAX_AFFECTED_PROMPTS and to MAX_EVENT_BYTES. */
export function eventBody(change: Change, affected: { ids: readonly string[]; complete: boolean }): string {
  const { action, kind, id, label, versions, by, at, request_id } = change
  let ids = affected.ids.slice(0, MAX_AFFECTED_PROMPTS)
  let truncated = !affected.complete || affected.ids.length > ids.length
  for (;;) {
    const event: ChangeEvent = { action, kind, id, label, versions, by, at, request_id, affected_prompts: ids }
    if (truncated) event.affected_truncated = true
    const body = JSON.stringify(event)
    // Ids are at most 256 characters and 100 of them fit: only a change of a huge id list gets here twice.
    if (bytesOf(body) <= MAX_EVENT_BYTES || ids.length === 0) return body
    ids = ids.slice(0, Math.floor(ids.length / 2))
    truncated = true
  }
}

/** `messages` in sendBatch's bounds: at most MAX_BATCH_MESSAGES and about MAX_BATCH_BYTES each. */
function* batches<T extends { body: ChangeMessage }>(messages: readonly T[]): Generator<T[]> {
  let batch: T[] = []
  let bytes = 0
  for (const message of messages) {
    const size = bytesOf(message.body.body) + message.body.url.length
    if (batch.length === MAX_BATCH_MESSAGES || (batch.length > 0 && bytes + size > MAX_BATCH_BYTES)) {
      yield batch
      batch = []
      bytes = 0
    }
    batch.push(message)
    bytes += size
  }
  if (batch.length > 0) yield batch
}

function bytesOf(text: string): number {
  return new TextEncoder().encode(text).length
}
