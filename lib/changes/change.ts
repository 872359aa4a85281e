import type { RecordKind } from '../catalog'

export const CHANGE_ACTIONS = [
  'write',
  'delete',
  'promote',
  'rollback',
  'rollout',
  'rollout-end',
  'promote-request',
  'approve',
] as const
export type ChangeAction = (typeof CHANGE_ACTIONS)[number]

/**
 * One change a publisher made, as the audit trail keeps it and change
 * events carry it: what was done, to which record, by whom, when.
 */
export interface Change {
  action: ChangeAction
  kind: RecordKind
  id: string
  /** null: the base */
  label: string | null
  /** The versions involved: the one written (`version`), the one it replaced or rolled back to (`from`), a rollout's. */
  versions: number[]
  /** The publisher's name ('admin' for ADMIN_TOKEN). */
  by: string
  /** ISO time. */
  at: string
  request_id: string | null
}
