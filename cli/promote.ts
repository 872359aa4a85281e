import type { Promotion } from '../lib/publish'
import { TOMBSTONE } from '../lib/store'
import { connect } from './connect'
import { lineDiff, withContext } from './diff'
import { DONE, FAILED, misused, describeFailure } from './io'
import type { Io, Options } from './io'
import { checkLabels } from './labels'
import { failedTests, reportLines } from './test-report'
import { plural } from './validate'

/**
 * `promote --from NAME [--to NAME] [--dry-run] [--message M] [--force]`:
 * copies every record of label NAME onto the base (or label --to), each a new
 * version there, and removes the label, in one transaction (lib/publish
 * promote). --dry-run prints what would change, as a diff per record, and
 * writes nothing. The tests of the prompts the label affects run first (a
 * deployment's gate, or the same gate here when promoting in Redis directly,
 * render assertions only), and a failure refuses with TESTS_FAILED and their
 * report, printed as `test` prints one; --force promotes without them.
 */
export async function promoteCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  if (operands.length > 0) {
    return misused(io, 'promote', `promote: takes no operands ('${operands[0]}'): promote --from NAME [--to NAME]`)
  }
  if (values.from === undefined) {
    return misused(io, 'promote', 'promote: give --from NAME, the label to promote')
  }
  const misuse = checkLabels('promote', { from: values.from, to: values.to }, io)
  if (misuse !== undefined) return misuse
  if (values.to === values.from) {
    return misused(io, 'promote', `promote: the label ${values.from} cannot be promoted onto itself`)
  }
  const backend = connect(values, io)
  if ('misuse' in backend) {
    return misused(io, 'promote', `promote: ${backend.misuse}`)
  }
  const force = values.force === true
  const dryRun = values['dry-run'] === true
  let promotions: Promotion[]
  try {
    promotions = await backend.promote(values.from, { to: values.to, dryRun, message: values.message, force })
  } catch (e) {
    const report = failedTests(e)
    if (report !== undefined) for (const line of reportLines(report)) io.out(line)
    io.err(`promote: ${describeFailure(e)}${report === undefined ? '' : ' (--force promotes without running them)'}`)
    return FAILED
  }
  for (const promotion of promotions) {
    io.out(header(promotion))
    if (dryRun) for (const line of recordDiff(promotion)) io.out(line)
  }
  const target = values.to === undefined ? 'the base' : `label ${values.to}`
  const records = plural(promotions.length, 'record')
  io.out(
    dryRun
      ? `dry run: promoting label ${values.from} would change ${records} of ${target}; nothing was written`
      : `promoted label ${values.from} onto ${target}: ${records} changed, and the label removed`,
  )
  return DONE
}

/** `~ prompts team.review (shenma:templates:team:review)`: `+` added, `-` deleted, `~` changed. */
export function header({ kind, id, key, before, after }: Promotion): string {
  const mark = absent(before) ? '+' : absent(after) ? '-' : '~'
  return `${mark} ${kind} ${id} (${key})`
}

/** The line diff of a record's pretty-printed JSON, before and after, changed lines with a little context. */
export function recordDiff({ before, after }: Pick<Promotion, 'before' | 'after'>): string[] {
  return withContext(lineDiff(pretty(before), pretty(after)))
}

/** No record: none stored, or a label's mark of a deletion. */
function absent(text: string | null): boolean {
  return text === null || text === TOMBSTONE
}

/** A stored text as lines: JSON pretty-printed, bare text (an environ) as it is, no record as none. */
function pretty(text: string | null): string[] {
  if (absent(text)) return []
  try {
    return JSON.stringify(JSON.parse(text as string), null, 2).split('\n')
  } catch {
    return (text as string).split('\n')
  }
}
