import { LabeledStore } from './labeled'
import { listedSource, pageOf, treeOf } from './tree'
import type { Generational, Page, Store, Tree, TreeRequest, Within } from './types'
import { measured } from './within'

/**
 * A store held in memory: the example records bundled into the Worker, so
 * the service runs with no Redis at all. It answers exactly like Redis would,
 * raw JSON text included, so the catalogue cannot tell the two apart.
 */
/** EmbeddedStores made so far in this isolate: each is its own generation. */
let instances = 0

export class EmbeddedStore implements Store, Generational {
  readonly kind = 'embedded'
  /**
   * Immutable: its answers hold for as long as it lives. One per set of
   * records (the Worker keeps one per isolate; the CLI's `render --file`
   * makes one per set of files), so a plan kept for one is never served for another.
   */
  readonly generation = `embedded#${++instances}`
  readonly answered = 0
  readonly missed = 0
  readonly treeReadAt = undefined
  readonly #data: ReadonlyMap<string, string>
  readonly #sortedKeys: readonly string[]

  constructor(records: Iterable<readonly [key: string, value: unknown]>) {
    const data = new Map<string, string>()
    for (const [key, value] of records) data.set(key, JSON.stringify(value))
    this.#data = data
    this.#sortedKeys = [...data.keys()].sort()
  }

  async page(prefix: string, after: string, limit: number): Promise<Page> {
    return pageOf(this.#under(prefix), after, limit)
  }

  async values(keys: readonly string[]): Promise<(string | null)[]> {
    return keys.map((key) => this.#data.get(key) ?? null)
  }

  async valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within> {
    return measured(await this.values(keys), maxBytes)
  }

  tree(request: TreeRequest): Promise<Tree> {
    const source = request.label === undefined ? this : new LabeledStore(this, request.label)
    return treeOf(listedSource(source), request)
  }

  #under(prefix: string): string[] {
    return this.#sortedKeys.filter((key) => key.startsWith(prefix))
  }

  answersHoldUntil(): number {
    return Infinity
  }
}
