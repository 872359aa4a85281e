/** Changes to records (change.ts), and the signed events that tell webhooks of them (events.ts, deliver.ts). */
export { CHANGE_ACTIONS } from './change'
export type { Change, ChangeAction } from './change'
export { MAX_AFFECTED_PROMPTS, MAX_EVENT_BYTES, sendChangeEvents } from './events'
export type { ChangeEvent } from './events'
export { MAX_WEBHOOK_URLS, parseWebhookUrls } from './webhooks'
export type { ChangeMessage, WebhookSettings } from './webhooks'
export { DELIVERY_TIMEOUT_MS, MAX_RETRY_AFTER_S, deliverChangeEvents, signature } from './deliver'
