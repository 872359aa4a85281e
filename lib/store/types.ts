/**
 * The store is the only thing that talks to Redis. It deals in keys and raw
 * JSON text; parsing and validation belong to the catalogue, so that a corrupt
 * record is reported there with its key, whatever the store.
 */
export type StoreKind = 'embedded' | 'upstash'

export interface Store {
  readonly kind: StoreKind
  /** Every key starting with `prefix`, sorted, each once. */
  keys(prefix: string): Promise<string[]>
  /** The raw values of `keys`, in order; null where a key holds no string value. */
  values(keys: readonly string[]): Promise<(string | null)[]>
}

/**
 * A store that can tell how long its answers hold, so that what is derived
 * from them (a render's plan: its prompt parsed, its tools, its variables)
 * can be kept rather than derived again per request.
 */
export interface Generational {
  /** Differs between stores, and changes whenever an answer this store would give may have changed. */
  readonly generation: string
  /** Until when (ms since the epoch) the answers it gave so far stay the ones it would give. */
  answersHoldUntil(): number
  /** How many values and listings it answered, for the request's log (`cache.hits` of a kept plan). */
  readonly answered: number
}

export function isGenerational(store: Store): store is Store & Generational {
  return typeof (store as Partial<Generational>).generation === 'string'
}
