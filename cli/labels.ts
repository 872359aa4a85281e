import { LABEL_PATTERN, LABEL_RULE } from '../lib/store'
import { misused } from './io'
import type { Io } from './io'
import type { Command } from './usage'

/**
 * Checks each option naming a label (`--label`, `--from`, `--to`) before any
 * request: MISUSED, said on stderr, for the first that is not a label; undefined when all are.
 */
export function checkLabels(command: Command, labels: Record<string, string | undefined>, io: Io): number | undefined {
  for (const [option, label] of Object.entries(labels)) {
    if (label !== undefined && !LABEL_PATTERN.test(label)) {
      return misused(io, command, `${command}: --${option} '${label.slice(0, 80)}' is not a label: it ${LABEL_RULE}`)
    }
  }
  return undefined
}
