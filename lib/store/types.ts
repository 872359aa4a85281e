/**
 * The store is the only thing that talks to Redis. It deals in keys and raw
 * JSON text; parsing and validation belong to the catalogue, so that a corrupt
 * record is reported there with its key, whatever the store.
 */
export type StoreKind = 'embedded' | 'upstash'

export interface Store {
  readonly kind: StoreKind
  /**
   * Up to `limit` keys starting with `prefix`, in byte order, each after
   * `after` ('' from the first); `more` when others follow. Read from the
   * record index (record-index.ts), never by walking the keyspace.
   */
  page(prefix: string, after: string, limit: number): Promise<Page>
  /** The raw values of `keys`, in order; null where a key holds no string value. */
  values(keys: readonly string[]): Promise<(string | null)[]>
  /**
   * What `values` answers for `keys` when those values hold at most
   * `maxBytes` (UTF-8) together; past it, each key's size only, no value
   * read, in the same one request a read of the values would be.
   */
  valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within>
  /** What a variable tree is built from, in one read (see TreeRequest). */
  tree(request: TreeRequest): Promise<Tree>
}

/**
 * What Store.tree reads: the values of `keys`, every key starting with one
 * of `prefixes` (and not among `keys`) with its value, and whether any key
 * starts with each of `probes`. Past `maxBytes` (the values and the names of
 * the keys below, UTF-8), which key passed it, and no value read. With a
 * `label`, all of it as that label sees it (labeled.ts), measured so: what
 * it hides does not count.
 */
export interface TreeRequest {
  keys: readonly string[]
  prefixes: readonly string[]
  probes: readonly string[]
  maxBytes: number
  label?: string | undefined
}

/** A page of keys under a prefix (Store.page). */
export interface Page {
  keys: string[]
  more: boolean
}

/** What Store.tree answers. */
export type Tree =
  | {
      within: true
      /** The values of the keys asked for, in order; null where none is. */
      values: (string | null)[]
      /** The keys below the prefixes, sorted, each once, and their values (null: listed, but gone when read). */
      below: string[]
      belowValues: (string | null)[]
      /** Per probe: whether a key starts with it. */
      occupied: boolean[]
    }
  | {
      within: false
      /** The key whose value, or whose name below a prefix, took the read past its budget. */
      passed: string
    }

/**
 * What a read within a byte budget answers (Store.valuesWithin): the values,
 * when together they hold at most the budget; else only each key's size
 * (bytes, -1 where no string value is), so that a read past the budget
 * transfers no value, and the caller can tell which key passed it.
 */
export type Within = { within: true; values: (string | null)[] } | { within: false; sizes: number[] }

/** A Redis command and its arguments, as the REST protocol takes it. */
export type Command = [string, ...string[]]
/** What Redis answered to one command: its result, or its error. */
export type Reply = { result?: unknown; error?: string }

/**
 * A store that runs commands beyond reading keys and values: history lists,
 * counters, and writes, each batch atomically.
 */
export interface CommandStore {
  /** Tells this database from every other, for in-memory cache keys only: it may hold a secret. */
  readonly identity: string
  /**
   * Runs `commands` in one MULTI/EXEC: none runs unless all were accepted
   * (an error then fails the call), and each answers its result or its
   * error. `writes` says whether the batch changes anything, so whether it
   * may be sent again after a failed request.
   */
  transaction(commands: readonly Command[], writes: boolean): Promise<Reply[]>
}

export function runsCommands(store: Store): store is Store & CommandStore {
  return typeof (store as Partial<CommandStore>).transaction === 'function'
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
  /** How many of those it had to read from the store below, no cache holding them (a RENDER_TIMEOUT says so). */
  readonly missed: number
  /**
   * When the copy of the last tree (shared variables) it answered was read
   * from the store below, ms since the epoch: what an explained render says
   * of their age. Undefined where no copy is kept (every read is fresh).
   */
  readonly treeReadAt: number | undefined
}

export function isGenerational(store: Store): store is Store & Generational {
  return typeof (store as Partial<Generational>).generation === 'string'
}
