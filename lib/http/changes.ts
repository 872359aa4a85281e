import type { Context } from 'hono'
import { appendChanges } from '../changes/audit'
import type { Change, ChangeAction } from '../changes/change'
import type { RecordKind } from '../catalog'
import { describeError, log } from '../log'
import { settingsOf, writerOf } from './context'
import type { AppEnv } from './context'

/** What a route says of one change it made; recordChanges adds who, when and the request. */
export interface Made {
  action: ChangeAction
  kind: RecordKind
  id: string
  label: string | null
  versions: number[]
}

/**
 * The name of the publisher making this request's changes. Writes need
 * ADMIN_TOKEN, which is the publisher named `admin`; named publishers
 * (PUBLISHERS) are told apart here once they exist.
 */
export function changedBy(_c: Context<AppEnv>): string {
  return 'admin'
}

/** `made`, as the changes of this request: by its publisher, now, under its request id. */
export function changesOf(c: Context<AppEnv>, made: readonly Made[]): Change[] {
  const by = changedBy(c)
  const at = new Date().toISOString()
  const requestId = c.get('requestId') ?? null
  return made.map((m) => ({ ...m, by, at, request_id: requestId }))
}

/**
 * Keeps `changes`, made by this request and acknowledged already, in the
 * audit trail (lib/changes/audit.ts). The write stands whatever happens
 * here: a failure to record is logged (a warning naming what was missed),
 * never answered. Waited for, so that a client reading the trail after its
 * answer finds its change there; one Redis request, bounded by REDIS_TIMEOUT_MS.
 */
export async function recordChanges(c: Context<AppEnv>, changes: Change[]): Promise<void> {
  if (changes.length === 0) return
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
