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
export interface Change {
  action: ChangeAction
  kind: RecordKind // 'extensions' | 'prompts' | 'environs' | 'tools' (lib/catalog)
  id: string
  label: string | null // null: the base
  /** The versions involved: the one written (`version`), the one it replaced or rolled back to (`from`), a rollout's. */
  versions: number[]
  by: string // the publisher's name ('admin' for ADMIN_TOKEN)
  at: string // ISO time
  request_id: string | null
}
