/**
 * The audit trail: every change made through the service (change.ts), kept
 * in one Redis stream, trimmed to about AUDIT_MAX_ENTRIES, read newest first.
 */
import { ServiceError } from '../errors'
import { ROOT, commandsOf } from '../store'
import type { Command, Reply, Store } from '../store'
import type { Change, ChangeAction } from './change'

/** Outside every record kind's prefix and every label's: neither the record index nor reconcile touches it. */
export const AUDIT_KEY = `${ROOT}audit`

/** A stream entry's id (`1764310000000-0`): what a cursor is. */
export const ENTRY_ID_PATTERN = /^[0-9]{1,20}-[0-9]{1,20}$/

/** Entries a page answers at most (`?limit=`), and by default. */
export const MAX_AUDIT_PAGE = 200
export const DEFAULT_AUDIT_PAGE = 50
/** A filtered page reads at most this many times its limit: a filter that matches nothing costs a bounded read. */
export const FILTERED_READ_FACTOR = 10

/** One change as the trail answers it: the change, and its stream entry's id (what `?cursor=` continues before). */
export interface AuditEntry extends Omit<Change, 'action'> {
  entry_id: string
  /** A ChangeAction, unless the entry was written by other means. */
  action: ChangeAction | string
}

export interface AuditQuery {
  limit: number
  /** An entry id: the page starts with the entries before it. */
  cursor?: string | undefined
  id?: string | undefined
  by?: string | undefined
  action?: string | undefined
}

export interface AuditPage {
  entries: AuditEntry[]
  /** The entry id to continue before; null when the stream has nothing older. */
  next: string | null
}

/**
 * Appends `changes` to the trail of `store`'s Redis, in one transaction,
 * oldest first (an entry's id orders it). `MAXLEN ~` lets Redis trim whole
 * nodes of the stream: the trail holds at least `maxEntries`, and at most a
 * node's worth (100 entries by default) more. The embedded store, which
 * takes no writes, keeps no trail.
 */
export async function appendChanges(store: Store, changes: readonly Change[], maxEntries: number): Promise<void> {
  const commands = commandsOf(store)
  if (!commands || changes.length === 0) return
  const xadds = changes.map((change): Command => [
    'XADD',
    AUDIT_KEY,
    'MAXLEN',
    '~',
    String(maxEntries),
    '*',
    ...fieldsOf(change),
  ])
  const failed = (await commands.transaction(xadds, true)).find((reply) => reply.error !== undefined)
  if (failed) throw new ServiceError('STORE_UNAVAILABLE', `Redis refused an audit entry: ${failed.error}`)
}

/**
 * A page of the trail, newest first, in one read. Unfiltered it reads
 * `limit` entries (and one more, to tell whether older ones follow);
 * filtered, at most FILTERED_READ_FACTOR x `limit`, keeping the matches:
 * when the read ends before `limit` of them, the cursor goes on from the
 * last entry read, so that the next page looks further back. The embedded
 * store's trail is empty.
 */
export async function readAudit(store: Store, query: AuditQuery): Promise<AuditPage> {
  const commands = commandsOf(store)
  if (!commands) return { entries: [], next: null }
  const filtered = query.id !== undefined || query.by !== undefined || query.action !== undefined
  const budget = filtered ? query.limit * FILTERED_READ_FACTOR : query.limit
  const end = query.cursor === undefined ? '+' : `(${query.cursor}`
  const [reply] = await commands.transaction([['XREVRANGE', AUDIT_KEY, end, '-', 'COUNT', String(budget + 1)]], false)
  const read = entriesOf(reply)
  const entries: AuditEntry[] = []
  let last = -1
  for (const entry of read.slice(0, budget)) {
    if (entries.length === query.limit) break
    last++
    if (matches(entry, query)) entries.push(entry)
  }
  const more = last < read.length - 1
  return { entries, next: more ? (read[last]?.entry_id ?? null) : null }
}

function matches(entry: AuditEntry, query: AuditQuery): boolean {
  return (
    (query.id === undefined || entry.id === query.id) &&
    (query.by === undefined || entry.by === query.by) &&
    (query.action === undefined || entry.action === query.action)
  )
}

/** A change as stream fields: nulls as empty strings (no label and no request id is empty), versions comma-separated. */
function fieldsOf(change: Change): string[] {
  return [
    'action',
    change.action,
    'kind',
    change.kind,
    'id',
    change.id,
    'label',
    change.label ?? '',
    'versions',
    change.versions.join(','),
    'by',
    change.by,
    'at',
    change.at,
    'request_id',
    change.request_id ?? '',
  ]
}

/** XREVRANGE's answer, `[[id, [field, value, ...]], ...]`, as entries; what is missing from one reads as empty. */
function entriesOf(reply: Reply | undefined): AuditEntry[] {
  if (reply?.error !== undefined) {
    throw new ServiceError('CONFLICT', `the audit trail at ${AUDIT_KEY} holds something else: ${reply.error}`)
  }
  const rows = Array.isArray(reply?.result) ? (reply.result as unknown[]) : []
  return rows.map((row) => {
    const [entryId, list] = Array.isArray(row) ? row : []
    const fields = new Map<string, string>()
    const flat = Array.isArray(list) ? list.map(String) : []
    for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i] as string, flat[i + 1] as string)
    const text = (name: string) => fields.get(name) ?? ''
    return {
      entry_id: String(entryId),
      action: text('action'),
      kind: text('kind') as Change['kind'],
      id: text('id'),
      label: text('label') || null,
      versions: text('versions').split(',').filter(Boolean).map(Number).filter(Number.isSafeInteger),
      by: text('by'),
      at: text('at'),
      request_id: text('request_id') || null,
    }
  })
}
