/**
 * Writes through the service: records checked as the catalogue reads them,
 * each written with its version (lib/store/history.ts), to the base or to a
 * label; and promotion of a label's records onto the base or another label.
 * The API's write routes and the CLI share this code.
 */
export { checkedRecord, deleteRecord, putRecord, putTexts, writable } from './write'
export type { PutText, WriteOptions, Written } from './write'
export { promote } from './promote'
export type { PromoteOptions, Promotion } from './promote'
export { MAX_PROMOTE_REQUESTS, checkPlan, closePromoteRequest, promoteRequest, requestPromote } from './approvals'
export type { PromoteRequest } from './approvals'
export { rollbackRecord } from './rollback'
export type { RolledBack } from './rollback'
