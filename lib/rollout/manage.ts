import { recordVersions } from '../catalog'
import { ServiceError } from '../errors'
import { writable } from '../publish'
import { commandsOf, labelRolloutsKey, noteWrite, rolloutKey, withLabel } from '../store'
import type { Command, Store } from '../store'
import { checkRollout, decodeRollout } from './choose'
import type { Rollout, RolloutVersion } from './choose'

/** Rollouts one label keeps at most: a promote of the label reads and ends them all in one step. */
export const MAX_LABEL_ROLLOUTS = 1000

/** A rollout as the API answers it: whose it is (the base's when `label` is null). */
export interface RolloutAnswer extends Rollout {
  id: string
  label: string | null
}

/**
 * Starts (or changes) the rollout of prompt `id`, in the base or in
 * `label`'s own record of it: each version must be a version kept of the
 * record that serves the prompt there, not its deletion (400 naming the
 * first that is not). A label serving the base's record has no rollout of
 * its own (409): it follows the base's.
 */
export async function putRollout(
  store: Store,
  id: string,
  label: string | undefined,
  body: { versions: readonly RolloutVersion[]; sticky?: string | undefined },
): Promise<RolloutAnswer> {
  const commands = writable(store)
  const rollout = checkRollout(body)
  await ownLayer(store, id, label, rollout)
  const key = rolloutKey(id, label)
  const write: Command[] = [['SET', key, JSON.stringify(rollout)]]
  if (label !== undefined) {
    const set = labelRolloutsKey(label)
    const [held, count] = await commands.transaction(
      [
        ['SISMEMBER', set, id],
        ['SCARD', set],
      ],
      false,
    )
    if (held?.result !== 1 && Number(count?.result) >= MAX_LABEL_ROLLOUTS) {
      throw new ServiceError(
        'LIMIT_EXCEEDED',
        `label '${label}' keeps ${MAX_LABEL_ROLLOUTS} rollouts already (MAX_LABEL_ROLLOUTS): end one first`,
      )
    }
    write.push(['SADD', set, id])
  }
  refused(await commands.transaction(write, true))
  await noteWrite(commands)
  return { id, label: label ?? null, ...rollout }
}

/**
 * The rollout prompt `id` is served by as `label` sees it: the label's own
 * when the label has its own record of the prompt, else the base's. 404 when none.
 */
export async function getRollout(store: Store, id: string, label: string | undefined): Promise<RolloutAnswer> {
  const { layer } = await recordVersions(withLabel(store, label), 'prompts', id)
  // The embedded store keeps none.
  const [text] = commandsOf(store) ? await store.values([rolloutKey(id, layer.label)]) : []
  const rollout = typeof text === 'string' ? decodeRollout(text) : undefined
  if (!rollout) throw noRollout(id, layer.label)
  return { id, label: layer.label ?? null, ...rollout }
}

/** Ends the rollout of prompt `id` in the base or `label`: the prompt serves its newest version again. */
export async function endRollout(store: Store, id: string, label: string | undefined): Promise<RolloutAnswer> {
  const ended = await getRollout(store, id, label)
  if ((ended.label ?? undefined) !== label) throw notOwn(id, label as string)
  const commands = writable(store)
  const write: Command[] = [['DEL', rolloutKey(id, label)]]
  if (label !== undefined) write.push(['SREM', labelRolloutsKey(label), id])
  refused(await commands.transaction(write, true))
  await noteWrite(commands)
  return ended
}

/** Checks that the record serving `id` in `label` is the label's own (or the base's, without one), and keeps every version named. */
async function ownLayer(store: Store, id: string, label: string | undefined, rollout: Rollout): Promise<void> {
  const { layer, versions } = await recordVersions(withLabel(store, label), 'prompts', id)
  if (layer.label !== label) throw notOwn(id, label as string)
  const kept = new Set(versions.filter((v) => !v.deleted).map((v) => v.version))
  const missing = rollout.versions.find((v) => !kept.has(v.version))
  if (missing) {
    throw new ServiceError(
      'BAD_REQUEST',
      `version ${missing.version} is not a version kept of ${layer.key} (prompt '${id}'), or is its deletion: see its versions`,
    )
  }
}

function notOwn(id: string, label: string): ServiceError {
  return new ServiceError(
    'CONFLICT',
    `label '${label}' has no record of its own serving prompt '${id}': it follows the base's rollout (omit ?label=)`,
  )
}

function noRollout(id: string, label: string | undefined): ServiceError {
  return new ServiceError(
    'NOT_FOUND',
    `prompt '${id}' has no rollout${label === undefined ? '' : ` in label '${label}'`}`,
  )
}

function refused(replies: readonly { error?: string }[]): void {
  const error = replies.find((r) => r.error !== undefined)?.error
  if (error !== undefined) throw new ServiceError('STORE_UNAVAILABLE', `Redis refused a rollout write: ${error}`)
}
