import { RECORD_KINDS } from '../lib/catalog'
import type { RecordKind } from '../lib/catalog'
import type { VersionEntry } from '../lib/store'
import type { Backend } from './backend'
import { connect } from './connect'
import { DONE, FAILED, misused, describeFailure } from './io'
import type { Io, Options } from './io'
import { checkLabels } from './labels'

/** `versions <kind> <id> [--label NAME]`: the versions kept of a record, newest first, as a table. */
export async function versionsCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  const named = recordNamed('versions', operands, io)
  if (typeof named === 'number') return named
  const backend = connected('versions', values, io)
  if (typeof backend === 'number') return backend
  const [kind, id] = named
  try {
    const { label, versions } = await backend.versions(kind, id, values.label)
    const layer = label === undefined ? 'the base' : `label ${label}'s own record`
    if (versions.length === 0) {
      io.out(`${kind} ${id} (${layer}) has no versions kept: it was written by other means than the service`)
      return DONE
    }
    io.out(`${kind} ${id} (${layer}):`)
    for (const line of versionsTable(versions)) io.out(line)
    return DONE
  } catch (e) {
    io.err(`versions: ${describeFailure(e)}`)
    return FAILED
  }
}

/**
 * `rollback <kind> <id> --to N [--label NAME] [--message M]`: writes version
 * N's record again, as a new version. A version that is a deletion cannot be
 * written again.
 */
export async function rollbackCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  const named = recordNamed('rollback', operands, io)
  if (typeof named === 'number') return named
  if (values.to === undefined || !/^[1-9][0-9]{0,8}$/.test(values.to)) {
    return misused(
      io,
      'rollback',
      `rollback: give --to N, the version to write again (a number, 1 or more; see 'versions')`,
    )
  }
  const backend = connected('rollback', values, io)
  if (typeof backend === 'number') return backend
  const [kind, id] = named
  const n = Number(values.to)
  try {
    const written = await backend.rollback(kind, id, n, { label: values.label, message: values.message })
    io.out(`${kind} ${id}: version ${written.version} at ${written.key} is version ${n} again`)
    return DONE
  } catch (e) {
    io.err(`rollback: ${describeFailure(e)}`)
    return FAILED
  }
}

/** `version  created_at  by  message  deleted` and a row per version, columns aligned (`-`: by no publisher). */
export function versionsTable(versions: readonly VersionEntry[]): string[] {
  const rows = [
    ['version', 'created_at', 'by', 'message', 'deleted'],
    ...versions.map((v) => [
      String(v.version),
      v.created_at,
      v.by ?? '-',
      oneLine(v.message ?? ''),
      v.deleted ? 'yes' : 'no',
    ]),
  ]
  const last = 4
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((row) => (row[c] as string).length)))
  return rows.map((row) => row.map((cell, c) => (c < last ? cell.padEnd(widths[c] as number) : cell)).join('  '))
}

/** A message on one line of the table: line breaks shown as spaces, at most 80 characters. */
function oneLine(message: string): string {
  const flat = message.replace(/\s+/g, ' ')
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat
}

/** `<kind> <id>` of the operands, or the status of a misuse (said on stderr). */
function recordNamed(
  command: 'versions' | 'rollback',
  operands: readonly string[],
  io: Io,
): [RecordKind, string] | number {
  const [kind, id, ...extra] = operands
  if (kind === undefined || id === undefined || extra.length > 0) {
    return misused(io, command, `${command}: name one record: ${command} <${RECORD_KINDS.join('|')}> <id>`)
  }
  if (!(RECORD_KINDS as readonly string[]).includes(kind)) {
    return misused(io, command, `${command}: '${kind}' is not a kind of record: one of ${RECORD_KINDS.join(', ')}`)
  }
  return [kind as RecordKind, id]
}

/** The backend a command goes to, after its label is checked; else the status of the misuse. */
export function connected(command: 'versions' | 'rollback' | 'rollout', values: Options, io: Io): Backend | number {
  const misuse = checkLabels(command, { label: values.label }, io)
  if (misuse !== undefined) return misuse
  const backend = connect(values, io)
  if ('misuse' in backend) {
    return misused(io, command, `${command}: ${backend.misuse}`)
  }
  return backend
}
