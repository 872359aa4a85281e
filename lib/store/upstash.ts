import { Redis, errors } from '@upstash/redis/cloudflare'
import type { Pipeline } from '@upstash/redis/cloudflare'
import { ServiceError } from '../errors'
import { describeError } from '../log'
import { matchUnder } from './keys'
import { LabeledStore } from './labeled'
import { listedSource, pageOf, treeOf } from './tree'
import type { Command, CommandStore, Page, Reply, Store, Tree, Within } from './types'
import { WITHIN_SCRIPT, withinAnswer } from './within'

/**
 * SCAN's COUNT is how many slots Redis visits per call, and a walk visits
 * every key of the database, not only the prefix's. Each page is one HTTP
 * request (and one subrequest of the Worker's budget), so pages are large:
 * a listing costs about (keys in the database / SCAN_COUNT) + 2 requests.
 */
const SCAN_COUNT = 10_000
/** Keys per MGET. A read's batches all go in one pipeline: one HTTP request. */
const MGET_BATCH = 500
/** Retries of a read that failed to reach Upstash; an edge request would rather fail fast with a 503. */
const READ_RETRIES = 2
const backoff = (n: number) => 25 * 2 ** n

export interface UpstashConfig {
  url: string
  token: string
  /** Bound on one HTTP request to Upstash, retries included. */
  timeoutMs: number
}

/**
 * How each command a transaction may hold is queued: the SDK's multi() has a
 * method per command and no generic one, so the commands that callers of
 * `transaction` send (history.ts, commit-script.ts) are listed here.
 */
const QUEUE: Record<string, (tx: Pipeline, ...args: string[]) => unknown> = {
  GET: (tx, key) => tx.get(key),
  LRANGE: (tx, key, start, stop) => tx.lrange(key, Number(start), Number(stop)),
  LINDEX: (tx, key, index) => tx.lindex(key, Number(index)),
  EVAL: (tx, script, count, ...rest) => tx.eval(script, rest.slice(0, Number(count)), rest.slice(Number(count))),
}

/**
 * The store on Upstash Redis, through @upstash/redis set for the edge. Each
 * read is one HTTP request (a SCAN page, a pipeline of MGET batches, an
 * EVAL), each transaction one MULTI/EXEC; the SDK's auto-pipelining, which
 * would merge concurrent calls, is off. Reads and writes have a client each:
 * a read that failed to reach Upstash is sent again, briefly; a write never
 * is, since it may have landed before its answer was lost. Values are JSON
 * text, answered as they are stored (no automatic deserialisation): the
 * catalogue parses them, so that a corrupt one is reported as such.
 */
export class UpstashStore implements Store, CommandStore {
  readonly kind = 'upstash'
  /**
   * The longest one request takes before it fails, retries included. A SCAN
   * of several pages can take longer; whoever waits for it then reads for
   * itself (see flights.ts).
   */
  readonly readLimitMs: number
  readonly #base: string
  readonly #token: string
  readonly #read: Redis
  readonly #write: Redis

  /** Throws when `url` is not http:// or https://. */
  constructor(config: UpstashConfig) {
    const url = new URL(config.url)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not an http(s) URL')
    this.#base = url.href.replace(/\/+$/, '')
    this.#token = config.token
    this.readLimitMs = config.timeoutMs
    const client = (retry: { retries: number; backoff?: (n: number) => number }) =>
      new Redis({
        url: this.#base,
        token: config.token,
        retry,
        // A function, called per request: given an AbortSignal itself, the SDK
        // answers an aborted request with the abort's reason as its *result*
        // (a hung GET would read as a value); given a function, it throws.
        signal: () => AbortSignal.timeout(config.timeoutMs),
        automaticDeserialization: false,
        enableTelemetry: false,
        enableAutoPipelining: false,
      })
    this.#read = client({ retries: READ_RETRIES, backoff })
    // Not `retry: false`, which the SDK (1.39) still takes as one retry.
    this.#write = client({ retries: 0 })
  }

  async page(prefix: string, after: string, limit: number): Promise<Page> {
    return pageOf(await this.scan(prefix), after, limit)
  }

  tree(
    keys: readonly string[],
    prefixes: readonly string[],
    probes: readonly string[],
    maxBytes: number,
    label?: string,
  ): Promise<Tree> {
    const source = label === undefined ? this : new LabeledStore(this, label)
    return treeOf(listedSource(source), keys, prefixes, probes, maxBytes)
  }

  /** Every key starting with `prefix`, sorted, each once: a walk of the whole keyspace. */
  scan(prefix: string): Promise<string[]> {
    return this.#call('SCAN', async () => {
      const found = new Set<string>()
      let cursor = '0'
      do {
        const [next, keys] = await this.#read.scan(cursor, { match: matchUnder(prefix), count: SCAN_COUNT })
        for (const key of keys) found.add(String(key))
        cursor = String(next)
      } while (cursor !== '0')
      return [...found].sort()
    })
  }

  values(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return Promise.resolve([])
    return this.#call('MGET', async () => {
      const batches = this.#read.pipeline()
      for (let i = 0; i < keys.length; i += MGET_BATCH) batches.mget(...keys.slice(i, i + MGET_BATCH))
      return ((await batches.exec()) as (string | null)[][]).flat()
    })
  }

  /** One EVAL: the script learns the sizes and reads the values only within the budget (within.ts). */
  valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within> {
    if (keys.length === 0) return Promise.resolve({ within: true, values: [] })
    return this.#call('EVAL', async () =>
      withinAnswer(await this.#read.eval(WITHIN_SCRIPT, [...keys], [String(maxBytes)])),
    )
  }

  /** In-memory cache keys only: tells this database from others, and holds the token. */
  get identity(): string {
    return `${this.#base}\n${this.#token}`
  }

  async transaction(commands: readonly Command[], writes: boolean): Promise<Reply[]> {
    const tx = (writes ? this.#write : this.#read).multi()
    for (const [name, ...args] of commands) {
      const queue = QUEUE[name]
      if (!queue) throw new TypeError(`the Upstash store queues no ${name} in a transaction`)
      queue(tx, ...args)
    }
    const replies = await this.#call('MULTI/EXEC', () => tx.exec({ keepErrors: true }))
    // Read your writes: the read client carries on from what this write saw.
    if (writes) this.#read.readYourWritesSyncToken = this.#write.readYourWritesSyncToken
    return replies.map(({ result, error }) => (error === undefined ? { result } : { error }))
  }

  /** `run`, any failure of it a 503 naming `command`, and never what was sent. */
  async #call<T>(command: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (e) {
      throw new ServiceError('STORE_UNAVAILABLE', `Redis ${command} failed: ${this.#reason(e)}`)
    }
  }

  /**
   * Why a call failed, in words that quote nothing sent or stored: the SDK's
   * messages append the whole command (record bodies included), and its
   * JSON parse error a piece of the answer.
   */
  #reason(e: unknown): string {
    if (e instanceof DOMException && e.name === 'TimeoutError') return `timed out after ${this.readLimitMs} ms`
    if (e instanceof errors.UpstashJSONParseError) return 'the answer was not JSON'
    const message = describeError(e)
    const quoted = message.indexOf(', command was: ')
    return quoted === -1 ? message : message.slice(0, quoted)
  }
}
