import type { Context } from 'hono'
import { sendChangeEvents } from '../changes'
import type { Change } from '../changes'
import { describeError, log } from '../log'
import { settingsOf, waitUntilOf, writerOf } from './context'
import type { AppEnv } from './context'

/**
 * Queues the events of a route's acknowledged changes after its answer
 * (waitUntil), so neither the analysis of affected prompts nor the queue
 * slows the write; a failure is logged, never the write's.
 */
export function sendChangeEventsOf(c: Context<AppEnv>, changes: readonly Change[]): void {
  const send = async () => {
    try {
      await sendChangeEvents(settingsOf(c).webhooks, writerOf(c), changes)
    } catch (e) {
      log.warn('change events not sent', { changes: changes.length, reason: describeError(e) })
    }
  }
  waitUntilOf(c)(send())
}

/** The change a write of `version` made, as its route reports it (`by` is the admin until publishers come). */
export function changeOf(
  c: Context<AppEnv>,
  change: Pick<Change, 'action' | 'kind' | 'id' | 'label' | 'versions'>,
): Change {
  return { ...change, by: 'admin', at: new Date().toISOString(), request_id: c.get('requestId') ?? null }
}
