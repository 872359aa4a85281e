import { KINDS, TOMBSTONE, baseKeyOf, kindPrefix, overlayKey } from './keys'
import { isGenerational } from './types'
import type { Store, StoreKind, Within } from './types'
import { NONE, passedAt } from './within'

/**
 * The store as a label sees it: the label's overlay over the base. A key
 * reads the label's record where the label has one, the base record
 * otherwise, and nothing where the label deleted it (a tombstone); a listing
 * is the base's keys and the label's, less those it deleted. Everything
 * above the store (catalogue, render) reads through it unchanged, so a
 * label changes every kind and every list alike.
 *
 * Overlay keys hold the label in their name, so a cache below this store
 * keeps a label's entries apart from the base's and from other labels'.
 * Keys of no record kind (history, overlay keys themselves) are read as
 * they are, so one read can ask for records and what is kept beside them.
 */
export class LabeledStore implements Store {
  readonly kind: StoreKind

  constructor(
    readonly inner: Store,
    readonly label: string,
  ) {
    this.kind = inner.kind
  }

  /** The inner store's generation, as this label sees it: a render plan is kept per label (see Generational). */
  get generation(): string | undefined {
    return isGenerational(this.inner) ? `${this.inner.generation}@${this.label}` : undefined
  }

  answersHoldUntil(): number {
    return isGenerational(this.inner) ? this.inner.answersHoldUntil() : 0
  }

  get answered(): number {
    return isGenerational(this.inner) ? this.inner.answered : 0
  }

  async keys(prefix: string): Promise<string[]> {
    if (!layered(prefix)) return this.inner.keys(prefix)
    const [base, overlay] = await Promise.all([
      this.inner.keys(prefix),
      this.inner.keys(overlayKey(this.label, prefix)),
    ])
    const raws = await this.inner.values(overlay)
    const hidden = new Set<string>()
    const own: string[] = []
    overlay.forEach((key, i) => {
      const raw = raws[i] ?? null
      if (raw === TOMBSTONE) hidden.add(baseKeyOf(this.label, key))
      else if (raw !== null) own.push(baseKeyOf(this.label, key))
    })
    return [...new Set([...base.filter((key) => !hidden.has(key)), ...own])].sort()
  }

  async values(keys: readonly string[]): Promise<(string | null)[]> {
    return this.#overlaid(keys, await this.inner.values(this.#both(keys)))
  }

  /**
   * The base's values and the label's, read within `maxBytes` together, are
   * within it as the label sees them too. When together they are not, the
   * label's own sizes stand for the base's they hide (a tombstone counted as
   * its few bytes); the values as the label sees them are then read again
   * within `maxBytes` when they fit it, which only a label hiding large base
   * values costs.
   */
  async valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within> {
    const both = await this.inner.valuesWithin(this.#both(keys), maxBytes)
    if (both.within) return { within: true, values: this.#overlaid(keys, both.values) }
    let next = keys.length
    const own = keys.map((key) => (layered(key) ? (both.sizes[next++] as number) : NONE))
    const sizes = own.map((size, i) => (size === NONE ? (both.sizes[i] as number) : size))
    if (passedAt(sizes, maxBytes) !== -1) return { within: false, sizes }
    const read = keys.map((key, i) => (own[i] === NONE ? key : overlayKey(this.label, key)))
    const seen = await this.inner.valuesWithin(read, maxBytes)
    if (!seen.within) return seen
    return { within: true, values: seen.values.map((v, i) => (read[i] !== keys[i] && v === TOMBSTONE ? null : v)) }
  }

  /** `keys`, then the label's own key of each of them that a label can have. */
  #both(keys: readonly string[]): string[] {
    return [...keys, ...keys.filter(layered).map((key) => overlayKey(this.label, key))]
  }

  /** The values of `keys` as the label sees them, from `raws` read at #both(keys). */
  #overlaid(keys: readonly string[], raws: readonly (string | null)[]): (string | null)[] {
    let next = keys.length
    return keys.map((key, i) => {
      const base = raws[i] ?? null
      if (!layered(key)) return base
      const mine = raws[next++] ?? null
      if (mine === TOMBSTONE) return null
      return mine ?? base
    })
  }
}

/** Whether `key` (or prefix) is a record's, of one of the four kinds: only those have a label's own. */
function layered(key: string): boolean {
  return KINDS.some((kind) => key.startsWith(kindPrefix(kind)))
}
