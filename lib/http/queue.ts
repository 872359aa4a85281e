import { deliverChangeEvents } from '../changes'
import type { Env } from '../env'
import { describeError, log } from '../log'
import { settingsFrom } from '../settings'

/**
 * The Worker's `queue` handler: the CHANGE_EVENTS consumer (wrangler.toml),
 * delivering each change event to its webhook (lib/changes/deliver.ts).
 * With the webhook settings misconfigured nothing can be signed: the whole
 * batch is retried, and ends in the dead-letter queue if they stay so.
 */
export async function queue(batch: MessageBatch<unknown>, env: Env, _ctx: ExecutionContext): Promise<void> {
  let webhooks
  try {
    webhooks = settingsFrom(env).webhooks
  } catch (e) {
    log.warn('change events not delivered', { queue: batch.queue, reason: describeError(e) })
    batch.retryAll()
    return
  }
  await deliverChangeEvents(batch, webhooks)
}
