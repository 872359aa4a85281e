import { DEFAULT_AUDIT_PAGE, ENTRY_ID_PATTERN, MAX_AUDIT_PAGE } from '../lib/changes/audit'
import type { AuditEntry } from '../lib/changes/audit'
import { CHANGE_ACTIONS } from '../lib/changes/change'
import { connect } from './connect'
import { DONE, FAILED, misused, describeFailure } from './io'
import type { Io, Options } from './io'

/**
 * `audit [--id ID] [--by NAME] [--action A] [--limit N] [--cursor C] [--json]`:
 * a page of the audit trail, newest first, as a table (or the entries as
 * JSON lines), and the cursor of the page before it.
 */
export async function auditCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  if (operands.length > 0) return misused(io, 'audit', `audit: takes no operands ('${operands[0]}')`)
  const { action, limit, cursor } = values
  if (action !== undefined && !(CHANGE_ACTIONS as readonly string[]).includes(action)) {
    return misused(io, 'audit', `audit: --action is one of ${CHANGE_ACTIONS.join(', ')}, not '${action}'`)
  }
  if (limit !== undefined && !(/^[1-9][0-9]{0,2}$/.test(limit) && Number(limit) <= MAX_AUDIT_PAGE)) {
    return misused(io, 'audit', `audit: --limit is a number from 1 to ${MAX_AUDIT_PAGE}, not '${limit}'`)
  }
  if (cursor !== undefined && !ENTRY_ID_PATTERN.test(cursor)) {
    return misused(
      io,
      'audit',
      `audit: --cursor is the cursor a page printed (such as 1764310000000-0), not '${cursor}'`,
    )
  }
  const backend = connect(values, io)
  if ('misuse' in backend) return misused(io, 'audit', `audit: ${backend.misuse}`)
  try {
    const query = { id: values.id, by: values.by, action, cursor }
    const page = await backend.audit({ ...query, limit: limit === undefined ? DEFAULT_AUDIT_PAGE : Number(limit) })
    if (values.json) for (const entry of page.entries) io.out(JSON.stringify(entry))
    else if (page.entries.length === 0) io.out('no changes on this page')
    else for (const line of auditTable(page.entries)) io.out(line)
    // A filtered page may be empty and still have older entries to look through.
    if (page.next !== null) io.err(`older changes: audit --cursor ${page.next}`)
    return DONE
  } catch (e) {
    io.err(`audit: ${describeFailure(e)}`)
    return FAILED
  }
}

/** `at  by  action  kind  id  label  versions` and a row per entry, columns aligned. */
export function auditTable(entries: readonly AuditEntry[]): string[] {
  const rows = [
    ['at', 'by', 'action', 'kind', 'id', 'label', 'versions'],
    ...entries.map((e) => [e.at, e.by, e.action, e.kind, e.id, e.label ?? '(base)', e.versions.join(',')]),
  ]
  const last = 6
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => (row[c] as string).length))) ?? []
  return rows.map((row) => row.map((cell, c) => (c < last ? cell.padEnd(widths[c] as number) : cell)).join('  '))
}
