import type { Context } from 'hono'
import { sendChangeEvents } from '../changes'
import { appendChanges } from '../changes/audit'
import type { Change, ChangeAction } from '../changes/change'
import type { RecordKind } from '../catalog'
import { describeError, log } from '../log'
import { publisherOf } from './auth'
import { settingsOf, waitUntilOf, writerOf } from './context'
import type { AppEnv } from './context'

/** What a route says of one change it made; recordChanges adds who, when and the request. */
export interface Made {
  action: ChangeAction
  kind: RecordKind
  id: string
  label: string | null
  versions: number[]
}

/** `made`, as the changes of this request: by its publisher (or `by`), now, under its request id. */
export function changesOf(c: Context<AppEnv>, made: readonly Made[], by = publisherOf(c).name): Change[] {
  const at = new Date().toISOString()
  const requestId = c.get('requestId') ?? null
  return made.map((m) => ({ ...m, by, at, request_id: requestId }))
}

/**
 * Keeps `changes`, made by this request and acknowledged already, in the
 * audit trail (lib/changes/audit.ts), and queues their signed events to
 * WEBHOOK_URLS (lib/changes/events.ts). The write stands whatever happens
 * here: a failure to record is logged (a warning naming what was missed),
 * never answered. The trail is waited for, so that a client reading it after
 * its answer finds its change there (one Redis request, bounded by
 * REDIS_TIMEOUT_MS); the events go after the answer (waitUntil), so neither
 * the analysis of the prompts they affect nor the queue slows the write.
 */
export async function recordChanges(c: Context<AppEnv>, changes: Change[]): Promise<void> {
  if (changes.length === 0) return
  waitUntilOf(c)(sendEvents(c, changes))
  try {
    await appendChanges(writerOf(c), changes, settingsOf(c).auditMaxEntries)
    c.get('log')?.set('audited', changes.length)
  } catch (e) {
    log.warn('the audit trail missed changes', {
      count: changes.length,
      // The first few say which; a promote of many records is named by its label.
      changes: changes.slice(0, 5).map(({ action, kind, id, label }) => ({ action, kind, id, label })),
      error: describeError(e),
    })
  }
}

async function sendEvents(c: Context<AppEnv>, changes: readonly Change[]): Promise<void> {
  try {
    await sendChangeEvents(settingsOf(c).webhooks, writerOf(c), changes)
  } catch (e) {
    log.warn('change events not sent', { changes: changes.length, reason: describeError(e) })
  }
}
