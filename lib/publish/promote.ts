import { RECORD_KIND } from '../catalog'
import type { RecordKind } from '../catalog'
import { ServiceError } from '../errors'
import {
  KINDS,
  LabeledStore,
  allKeys,
  Observed,
  TOMBSTONE,
  baseKeyOf,
  commitIf,
  historyKeys,
  keyToId,
  kindPrefix,
  labelPrefix,
  labelRolloutsKey,
  noteWrite,
  overlayKey,
  rolloutKey,
} from '../store'
import type { CommandStore, Kind, Store } from '../store'
import { writable } from './write'

/** One record a promotion changes on its target. */
export interface Promotion {
  kind: RecordKind
  id: string
  /** The key written on the target: the base key, or the target label's. */
  key: string
  /** The text the target sees before, and the text written (TOMBSTONE: hidden in the target label); null where there is no record. */
  before: string | null
  after: string | null
  /** The version written on the target; absent from a dry run's plan. */
  version?: number
}

export interface PromoteOptions {
  /** The target label; none for the base. */
  to?: string | undefined
  /** Only say what would change. */
  dryRun?: boolean
  message?: string | undefined
  /** The publisher promoting, kept with each version written. */
  by?: string | undefined
  historyLimit: number
  /**
   * What a dry run answered and was checked against (the promote gate's
   * tests): the promotion is made only if it is still exactly that, else
   * 409 CONFLICT, so that nothing untested is promoted.
   */
  expected?: readonly Promotion[] | undefined
}

/** Reads and writes of a promotion, before it gives up on a label others keep writing to. */
const ATTEMPTS = 5

/**
 * Copies every record of label `from` onto the target (the base, or label
 * `to`), each as a new version there, and removes the label's overlay and
 * its history, all in one step: a reader sees the label's records on the
 * target, or none of them. A record the label deleted is deleted on the
 * target. Records the target already holds as they are get no new version.
 * The label's version counters stay, so that a version number of a label
 * never names two texts. The label's rollouts (lib/rollout) end with it:
 * they name versions of the label's history, which the target does not
 * share; the target's own rollouts stay, as they do through a write.
 *
 * The step is made only if every key read still holds what was read
 * (commitIf): a write into the label (or the target) landing in between
 * would otherwise be deleted with the overlay, though acknowledged. The
 * promotion then reads again, ATTEMPTS times at most (409 CONFLICT after).
 * A record the label gains meanwhile stays in the label.
 */
export async function promote(store: Store, from: string, options: PromoteOptions): Promise<Promotion[]> {
  const commands = writable(store)
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const observed = new Observed(commands)
    const { promotions, overlay } = await plan(observed, from, options.to)
    if (options.dryRun) return promotions
    if (options.expected !== undefined && !samePlan(promotions, options.expected)) {
      throw new ServiceError(
        'CONFLICT',
        `label '${from}' or its target changed after the label's tests ran: nothing was promoted; promote again to test what it holds now`,
      )
    }
    const overlaid = overlay.flatMap((key) => {
      const h = historyKeys(key)
      return [key, h.head, h.log, h.values]
    })
    const deletions = [...overlaid, ...(await rolloutsOf(commands, from))]
    const message = options.message ?? `promoted from label ${from}`
    const changes = promotions.map(({ key, after }) => ({ key, text: after, message }))
    const done = await commitIf(commands, observed.guards(), changes, {
      historyLimit: options.historyLimit,
      deletions,
      by: options.by,
    })
    if (done) {
      await noteWrite(commands)
      return promotions.map((p, i) => ({ ...p, version: done[i] as number }))
    }
  }
  throw new ServiceError(
    'CONFLICT',
    `label '${from}' was written to while it was promoted, ${ATTEMPTS} times running: nothing was promoted; try again`,
  )
}

/**
 * The keys of label `from`'s rollouts and of their set (labelRolloutsKey),
 * for a promote to remove. A rollout started meanwhile stays in the label,
 * as a record written meanwhile does.
 */
async function rolloutsOf(commands: CommandStore, from: string): Promise<string[]> {
  const set = labelRolloutsKey(from)
  const [reply] = await commands.transaction([['SMEMBERS', set]], false)
  const ids = Array.isArray(reply?.result) ? (reply.result as unknown[]).filter((id) => typeof id === 'string') : []
  return ids.length === 0 ? [] : [set, ...ids.map((id) => rolloutKey(id, from))]
}

/** What promoting `from` onto `to` (the base when undefined) changes, read from `store`; and the overlay keys it removes. */
async function plan(
  store: Store,
  from: string,
  to: string | undefined,
): Promise<{ promotions: Promotion[]; overlay: string[] }> {
  const overlay = (await allKeys(store, labelPrefix(from))).filter((key) => kindOf(baseKeyOf(from, key)) !== undefined)
  const raws = await store.values(overlay)
  const targets = overlay.map((key) => (to === undefined ? baseKeyOf(from, key) : overlayKey(to, baseKeyOf(from, key))))
  // What the target sees now: a label sees the base where it has no record of its own.
  const target = to === undefined ? store : new LabeledStore(store, to)
  const befores = await target.values(overlay.map((key) => baseKeyOf(from, key)))
  const promotions: Promotion[] = []
  overlay.forEach((key, i) => {
    const raw = raws[i] ?? null
    if (raw === null) return
    const base = baseKeyOf(from, key)
    const kind = kindOf(base) as Kind
    const before = befores[i] ?? null
    const after = raw === TOMBSTONE && to === undefined ? null : raw
    if (before === after || (before === null && (after === null || after === TOMBSTONE))) return
    promotions.push({ kind: RECORD_KIND[kind], id: keyToId(kind, base), key: targets[i] as string, before, after })
  })
  return { promotions, overlay }
}

/** Two plans write the same texts at the same keys over the same texts. */
function samePlan(a: readonly Promotion[], b: readonly Promotion[]): boolean {
  const written = new Map(b.map((p) => [p.key, p]))
  return (
    a.length === b.length &&
    a.every((p) => {
      const other = written.get(p.key)
      return other !== undefined && other.before === p.before && other.after === p.after
    })
  )
}

function kindOf(key: string): Kind | undefined {
  return KINDS.find((kind) => key.startsWith(kindPrefix(kind)))
}
