import { RECORD_KIND } from '../catalog'
import type { RecordKind } from '../catalog'
import {
  KINDS,
  LabeledStore,
  TOMBSTONE,
  baseKeyOf,
  commit,
  historyKeys,
  keyToId,
  kindPrefix,
  labelPrefix,
  noteWrite,
  overlayKey,
} from '../store'
import type { Command, Kind, Store } from '../store'
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
}

export interface PromoteOptions {
  /** The target label; none for the base. */
  to?: string | undefined
  /** Only say what would change. */
  dryRun?: boolean
  message?: string | undefined
  historyLimit: number
}

/**
 * Copies every record of label `from` onto the target (the base, or label
 * `to`), each as a new version there, and removes the label's overlay and
 * its history, all in one transaction: a reader sees the label's records on
 * the target, or none of them. A record the label deleted is deleted on the
 * target. Records the target already holds as they are get no new version.
 * The label's version counters stay, so that a version number of a label
 * never names two texts.
 */
export async function promote(store: Store, from: string, options: PromoteOptions): Promise<Promotion[]> {
  const commands = writable(store)
  const overlay = (await commands.keys(labelPrefix(from))).filter((key) => kindOf(baseKeyOf(from, key)) !== undefined)
  const raws = await commands.values(overlay)
  const targets = overlay.map((key) =>
    options.to === undefined ? baseKeyOf(from, key) : overlayKey(options.to, baseKeyOf(from, key)),
  )
  // What the target sees now: a label sees the base where it has no record of its own.
  const target = options.to === undefined ? commands : new LabeledStore(commands, options.to)
  const befores = await target.values(overlay.map((key) => baseKeyOf(from, key)))
  const promotions: Promotion[] = []
  overlay.forEach((key, i) => {
    const raw = raws[i] ?? null
    if (raw === null) return
    const base = baseKeyOf(from, key)
    const kind = kindOf(base) as Kind
    const before = befores[i] ?? null
    const after = raw === TOMBSTONE && options.to === undefined ? null : raw
    if (before === after || (before === null && (after === null || after === TOMBSTONE))) return
    promotions.push({ kind: RECORD_KIND[kind], id: keyToId(kind, base), key: targets[i] as string, before, after })
  })
  if (options.dryRun) return promotions
  const removals: Command[] = overlay.flatMap((key) => {
    const h = historyKeys(key)
    return [['DEL', key, h.head, h.log, h.values] as Command]
  })
  const message = options.message ?? `promoted from label ${from}`
  const changes = promotions.map(({ key, after }) => ({ key, text: after, message }))
  await commit(commands, changes, { historyLimit: options.historyLimit, also: removals })
  await noteWrite(commands)
  return promotions
}

function kindOf(key: string): Kind | undefined {
  return KINDS.find((kind) => key.startsWith(kindPrefix(kind)))
}
