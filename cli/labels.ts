import { LABEL_PATTERN, LABEL_RULE } from '../lib/store'
import { MISUSED } from './io'
import type { Io } from './io'

/**
 * Checks each option naming a label (`--label`, `--from`, `--to`) before any
 * request: MISUSED, said on stderr, for the first that is not a label; undefined when all are.
 */
export function checkLabels(command: string, labels: Record<string, string | undefined>, io: Io): number | undefined {
  for (const [option, label] of Object.entries(labels)) {
    if (label !== undefined && !LABEL_PATTERN.test(label)) {
      io.err(`${command}: --${option} '${label.slice(0, 80)}' is not a label: it ${LABEL_RULE}`)
      return MISUSED
    }
  }
  return undefined
}
