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
