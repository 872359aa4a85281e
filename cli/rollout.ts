import type { RolloutAnswer, RolloutVersion } from '../lib/rollout'
import { DONE, FAILED, describeFailure, misused } from './io'
import type { Io, Options } from './io'
import { connected } from './versions'

/**
 * `rollout <prompt_id> [VERSION=WEIGHT ...] [--sticky S] [--end] [--label NAME]`:
 * shows, starts or changes, or ends a prompt's rollout (lib/rollout). The
 * rules of a rollout are the service's to check: they are said once, there.
 */
export async function rolloutCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  const [id, ...weights] = operands
  if (id === undefined)
    return misused(io, 'rollout', 'rollout: name a prompt: rollout <prompt_id> [VERSION=WEIGHT ...]')
  const versions = weights.map(weighted)
  const bad = weights.find((_, i) => versions[i] === undefined)
  if (bad !== undefined) return misused(io, 'rollout', `rollout: '${bad}' is not VERSION=WEIGHT (such as 7=90)`)
  if (values.end && (weights.length > 0 || values.sticky !== undefined)) {
    return misused(io, 'rollout', 'rollout: --end takes no VERSION=WEIGHT and no --sticky')
  }
  if (values.sticky !== undefined && weights.length === 0) {
    return misused(io, 'rollout', 'rollout: --sticky goes with the VERSION=WEIGHT it keeps callers on')
  }
  const backend = connected('rollout', values, io)
  if (typeof backend === 'number') return backend
  try {
    if (values.end) {
      const ended = await backend.endRollout(id, values.label)
      io.out(`prompt ${id}${whose(ended)}: rollout ended; its newest version serves`)
      return DONE
    }
    const rollout =
      weights.length === 0
        ? await backend.rollout(id, values.label)
        : await backend.startRollout(
            id,
            { versions: versions as RolloutVersion[], sticky: values.sticky },
            values.label,
          )
    for (const line of rolloutLines(rollout)) io.out(line)
    return DONE
  } catch (e) {
    io.err(`rollout: ${describeFailure(e)}`)
    return FAILED
  }
}

/** A rollout, a line per version (newest first, as its buckets are laid out), then its sticky. */
export function rolloutLines(rollout: RolloutAnswer): string[] {
  return [
    `prompt ${rollout.id}${whose(rollout)}:`,
    ...rollout.versions.map(({ version, weight }) => `  version ${version}  ${weight}%`),
    `  sticky: ${rollout.sticky ?? 'none (a version per request, at random)'}`,
  ]
}

function whose(rollout: RolloutAnswer): string {
  return rollout.label === null ? ' (the base)' : ` (label ${rollout.label}'s own record)`
}

/** `7=90` as a version and its weight; undefined when it is not that shape. */
function weighted(operand: string): RolloutVersion | undefined {
  const match = /^([1-9][0-9]{0,8})=([0-9]{1,3})$/.exec(operand)
  return match ? { version: Number(match[1]), weight: Number(match[2]) } : undefined
}
