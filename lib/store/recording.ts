import { readIds } from './cached'
import type { Page, Store, StoreKind, Tree, TreeRequest, Within } from './types'

/**
 * A store that records every answer it passes on, each under the id a
 * CachedStore keeps that read under (cached.ts's readIds): what a prompt's
 * snapshot holds (lib/render/snapshots.ts), so that a CachedStore whose
 * Redis fails finds there exactly the reads a render makes, and nothing else.
 */
export class Recording implements Store {
  readonly kind: StoreKind
  readonly #reads = new Map<string, unknown>()

  constructor(readonly inner: Store) {
    this.kind = inner.kind
  }

  /** The reads answered so far, by id, in the ids' order: the same reads make the same text, however they raced. */
  get reads(): Record<string, unknown> {
    return Object.fromEntries([...this.#reads].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }

  async page(prefix: string, after: string, limit: number): Promise<Page> {
    const page = await this.inner.page(prefix, after, limit)
    this.#reads.set(readIds.page(prefix, after, limit), page)
    return page
  }

  async values(keys: readonly string[]): Promise<(string | null)[]> {
    const values = await this.inner.values(keys)
    keys.forEach((key, i) => this.#reads.set(readIds.value(key), values[i] ?? null))
    return values
  }

  async valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within> {
    const answer = await this.inner.valuesWithin(keys, maxBytes)
    // A CachedStore answers no keys without a read, so keeps no entry for them.
    if (keys.length > 0) this.#reads.set(await readIds.within(keys, maxBytes), answer)
    return answer
  }

  async tree(request: TreeRequest): Promise<Tree> {
    const answer = await this.inner.tree(request)
    this.#reads.set(await readIds.tree(request), answer)
    return answer
  }
}
