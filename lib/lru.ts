/**
 * A least-recently-used map of bounded size: a Map keeps insertion order, so
 * the first key is the least recent. Bounded in entries, and, for values of
 * uneven size, in their weights (bytes, say) in all: an entry heavier than
 * that alone is not kept.
 */
export class Lru<K, V> {
  readonly #entries = new Map<K, { value: V; weight: number }>()
  #weight = 0

  constructor(
    readonly capacity: number,
    readonly maxWeight = Infinity,
  ) {}

  get(key: K): V | undefined {
    const entry = this.#entries.get(key)
    if (entry !== undefined) {
      this.#entries.delete(key)
      this.#entries.set(key, entry)
    }
    return entry?.value
  }

  set(key: K, value: V, weight = 0): void {
    this.delete(key)
    if (weight > this.maxWeight) return
    this.#entries.set(key, { value, weight })
    this.#weight += weight
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.capacity && this.#weight <= this.maxWeight) break
      this.delete(oldest)
    }
  }

  delete(key: K): void {
    const entry = this.#entries.get(key)
    if (entry === undefined) return
    this.#entries.delete(key)
    this.#weight -= entry.weight
  }

  get size(): number {
    return this.#entries.size
  }

  /** The weights of the entries kept, in all. */
  get weight(): number {
    return this.#weight
  }
}
