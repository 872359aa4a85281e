import type { Guard } from './commit-script'
import { hexDigest } from './history'
import type { Page, Store, Tree, TreeRequest, Within } from './types'

/** Not a SHA-1: the guard of a key read twice with two texts, which no text holds. */
const UNSTEADY = 'read twice, two texts'

/**
 * A store that remembers what it read, so that a write decided on those
 * reads is made only if they all still hold (history.ts commitIf): a
 * compare-and-set over every key the decision looked at.
 */
export class Observed implements Store {
  readonly kind: Store['kind']
  readonly #read = new Map<string, string>()

  constructor(readonly inner: Store) {
    this.kind = inner.kind
  }

  page(prefix: string, after: string, limit: number): Promise<Page> {
    return this.inner.page(prefix, after, limit)
  }

  /** What a tree read within its budget is read as values are: each key, and each key below, with its text. */
  async tree(request: TreeRequest): Promise<Tree> {
    const answer = await this.inner.tree(request)
    // As a label sees them, the texts are not those of the keys asked: nothing to guard.
    if (answer.within && request.label === undefined)
      await this.#note([...request.keys, ...answer.below], [...answer.values, ...answer.belowValues])
    return answer
  }

  async values(keys: readonly string[]): Promise<(string | null)[]> {
    const values = await this.inner.values(keys)
    await this.#note(keys, values)
    return values
  }

  /** A read past the budget read no value, so it is no read a write could be decided on. */
  async valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within> {
    const answer = await this.inner.valuesWithin(keys, maxBytes)
    if (answer.within) await this.#note(keys, answer.values)
    return answer
  }

  /** Remembers the digest of each value read, or that a key was read with two texts. */
  async #note(keys: readonly string[], values: readonly (string | null)[]): Promise<void> {
    const digests = await Promise.all(values.map((value) => (value === null ? '' : hexDigest('SHA-1', value))))
    keys.forEach((key, i) => {
      const digest = digests[i] as string
      const known = this.#read.get(key)
      this.#read.set(key, known === undefined || known === digest ? digest : UNSTEADY)
    })
  }

  /** Each key read, with the SHA-1 of the text read there ('' for none). */
  guards(): Guard[] {
    return [...this.#read].map(([key, sha1]) => ({ key, sha1 }))
  }
}
