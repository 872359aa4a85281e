import { overlayKey } from '../lib/store'
import { PartlyPublished } from './backend'
import type { Published } from './backend'
import { connect } from './connect'
import type { RecordFile } from './files'
import { DONE, FAILED, misused, describeFailure } from './io'
import type { Io, Options } from './io'
import { checkLabels } from './labels'
import { plural, validated } from './validate'

/**
 * `publish <files...> [--label NAME] [--message M] [--dry-run]`: validates
 * the files, then writes every record with a new version: directly, in one
 * script (lib/publish putTexts); through a deployment's API, one PUT per
 * record. Under a label, to the label's own keys. A record whose key stores
 * its text as its newest version already is left as it is, either way: the
 * same files published twice make one version.
 */
export async function publishCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  const misuse = checkLabels('publish', { label: values.label }, io)
  if (misuse !== undefined) return misuse
  const records = await validated('publish', operands, io)
  if (!records) return FAILED
  if (values['dry-run']) {
    for (const line of describeWrites(records, values.label)) io.out(line)
    return DONE
  }
  const backend = connect(values, io)
  if ('misuse' in backend) {
    return misused(io, 'publish', `publish: ${backend.misuse}`)
  }
  let written: Published[]
  try {
    written = await backend.publish(records, { label: values.label, message: values.message })
  } catch (e) {
    if (e instanceof PartlyPublished) {
      for (const line of describeWritten(e.written)) io.out(line)
      const wrote = e.written.filter((w) => !w.unchanged).length
      io.err(
        `publish failed at ${e.failedAt}: ${describeFailure(e.cause)}\n` +
          `${plural(wrote, 'record')} before it ${wrote === 1 ? 'was' : 'were'} written ` +
          `(through the API each record is its own write, not one transaction)`,
      )
      return FAILED
    }
    io.err(`publish failed, nothing was written: ${describeFailure(e)}`)
    return FAILED
  }
  for (const line of describeWritten(written)) io.out(line)
  const label = values.label === undefined ? '' : ` in label ${values.label}`
  const unchanged = written.filter((w) => w.unchanged).length
  const left = unchanged === 0 ? '' : `; ${plural(unchanged, 'record')} unchanged`
  io.out(`published ${plural(written.length - unchanged, 'record')}${label} to ${backend.where}${left}`)
  return DONE
}

/** `SET key  version N  from file` per record written, `unchanged key  version N  from file` per record left as it was. */
function describeWritten(written: readonly Published[]): string[] {
  const width = Math.max(0, ...written.map((w) => w.key.length))
  return written.map(
    ({ key, version, file, unchanged }) =>
      `${unchanged ? 'unchanged' : 'SET'} ${key.padEnd(width)}  version ${version}  from ${file}`,
  )
}

/** `SET key  (N bytes)  from file`, one line per record: what a publish would write (under a label, the label's keys). */
export function describeWrites(records: readonly RecordFile[], label?: string): string[] {
  const keys = records.map(({ key }) => (label === undefined ? key : overlayKey(label, key)))
  const width = Math.max(0, ...keys.map((key) => key.length))
  return records.map(
    ({ value, file }, i) =>
      `SET ${(keys[i] as string).padEnd(width)}  ${JSON.stringify(value).length} bytes  from ${file}`,
  )
}
