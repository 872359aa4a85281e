import { KINDS, TOMBSTONE, baseKeyOf, kindPrefix, overlayKey } from './keys'
import { isGenerational } from './types'
import type { Page, Store, StoreKind, Tree, TreeRequest, Within } from './types'
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

  get missed(): number {
    return isGenerational(this.inner) ? this.inner.missed : 0
  }

  get treeReadAt(): number | undefined {
    return isGenerational(this.inner) ? this.inner.treeReadAt : undefined
  }

  /**
   * The base's keys and the label's, merged in order, less those the label
   * deleted: each source is read a page at a time, and the merge is good up
   * to the last key of the source that has more. A page of keys all hidden
   * reads on, so that a page is short only at the end.
   */
  async page(prefix: string, after: string, limit: number): Promise<Page> {
    if (!layered(prefix)) return this.inner.page(prefix, after, limit)
    const keys: string[] = []
    for (let from = after; ;) {
      const [base, overlay] = await Promise.all([
        this.inner.page(prefix, from, limit),
        this.inner.page(overlayKey(this.label, prefix), from === '' ? '' : overlayKey(this.label, from), limit),
      ])
      const own = overlay.keys.map((key) => baseKeyOf(this.label, key))
      const ends = [base.more ? base.keys.at(-1) : undefined, overlay.more ? own.at(-1) : undefined]
      const bound = ends.filter((end) => end !== undefined).sort()[0]
      const taken = (key: string) => bound === undefined || key <= bound
      const raws = await this.inner.values(overlay.keys.filter((_, i) => taken(own[i] as string)))
      const hidden = new Set(own.filter((_, i) => raws[i] === TOMBSTONE))
      const candidates = [...new Set([...base.keys, ...own.filter((_, i) => i < raws.length && raws[i] !== null)])]
      const visible = candidates.filter((key) => taken(key) && !hidden.has(key)).sort()
      for (const [i, key] of visible.entries()) {
        keys.push(key)
        if (keys.length === limit) return { keys, more: i < visible.length - 1 || bound !== undefined }
      }
      if (bound === undefined) return { keys, more: false }
      from = bound
    }
  }

  /** The inner store reads the tree as the label sees it: a store on Redis, in one request. */
  tree(request: TreeRequest): Promise<Tree> {
    return this.inner.tree({ ...request, label: this.label })
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
