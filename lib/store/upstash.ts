import { Redis, errors } from '@upstash/redis/cloudflare'
import type { Pipeline } from '@upstash/redis/cloudflare'
import { ServiceError } from '../errors'
import { describeError } from '../log'
import { ROOT, matchUnder } from './keys'
import { LabeledStore } from './labeled'
import {
  INDEX_KEYS,
  LABELS_SCRIPT,
  isRecordKey,
  PAGE_SCRIPT,
  TREE_SCRIPT,
  labelsAnswer,
  noIndex,
  pageAnswer,
  pageArgs,
  treeAnswer,
  treeCall,
} from './record-index'
import { listedSource, pageOf, treeOf } from './tree'
import type { Command, CommandStore, Page, Reply, Store, Tree, TreeRequest, Within } from './types'
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
 * `transaction` send (history.ts, commit-script.ts, lib/rollout, lib/changes/audit.ts) are listed here.
 */
const QUEUE: Record<string, (tx: Pipeline, ...args: string[]) => unknown> = {
  GET: (tx, key) => tx.get(key),
  LRANGE: (tx, key, start, stop) => tx.lrange(key, Number(start), Number(stop)),
  EVAL: (tx, script, count, ...rest) => tx.eval(script, rest.slice(0, Number(count)), rest.slice(Number(count))),
  // A rollout and the set of a label's rollouts (lib/rollout).
  SET: (tx, key, value) => tx.set(key, value),
  DEL: (tx, ...keys) => tx.del(...keys),
  SADD: (tx, key, member) => tx.sadd(key, member),
  SREM: (tx, key, member) => tx.srem(key, member),
  SISMEMBER: (tx, key, member) => tx.sismember(key, member),
  SCARD: (tx, key) => tx.scard(key),
  SMEMBERS: (tx, key) => tx.smembers(key),
  // In the one form the audit trail sends each: XADD key MAXLEN ~ n * field value ..., XREVRANGE key end start COUNT n.
  XADD: (tx, key, type, comparison, threshold, id, ...fields) =>
    tx.xadd(key, id as string, pairsOf(fields), {
      trim: { type: type as 'MAXLEN', comparison: comparison as '~', threshold: Number(threshold) },
    }),
  XREVRANGE: (tx, key, end, start, _count, count) => tx.xrevrange(key, end as string, start as string, Number(count)),
}

/** `[field, value, ...]` as the object the SDK's xadd takes. */
function pairsOf(fields: readonly string[]): Record<string, string> {
  const pairs: Record<string, string> = {}
  for (let i = 0; i + 1 < fields.length; i += 2) pairs[fields[i] as string] = fields[i + 1] as string
  return pairs
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
  /** The store as it lists keys without the index: what reads fall back to before its first reconcile. */
  readonly #walked: Store = new Walked(this)

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

  /** One EVAL on the record index; before its first reconcile, a walk of the keyspace. */
  async page(prefix: string, after: string, limit: number): Promise<Page> {
    const answer = await this.#call('EVAL', async () =>
      pageAnswer(await this.#read.eval(PAGE_SCRIPT, [...INDEX_KEYS], pageArgs(prefix, after, limit)), limit),
    )
    if (answer) return answer
    noIndex('page')
    return this.#walked.page(prefix, after, limit)
  }

  /**
   * A page of the labels with keys of their own, after `after` (a label;
   * '' from the first): one EVAL on the record index (LABELS_SCRIPT);
   * before its first reconcile, a walk of the keyspace.
   */
  async labels(after: string, limit: number): Promise<Page> {
    const prefix = `${ROOT}labels:`
    const answer = await this.#call('EVAL', async () =>
      labelsAnswer(await this.#read.eval(LABELS_SCRIPT, [...INDEX_KEYS], [prefix, after, String(limit)]), limit),
    )
    if (answer) return answer
    noIndex('labels')
    // Ordered as the index orders them: by their keys, `{label}:` (so `a-1` comes before `a`).
    const records = (await this.scan(prefix)).filter(isRecordKey)
    const labels = new Set(records.map((key) => key.slice(prefix.length, key.indexOf(':', prefix.length) + 1)))
    const page = pageOf([...labels].sort(), after === '' ? '' : `${after}:`, limit)
    return { keys: page.keys.map((label) => label.slice(0, -1)), more: page.more }
  }

  /** One EVAL on the record index (record-index.ts TREE_SCRIPT); before its first reconcile, a walk of the keyspace. */
  async tree(request: TreeRequest): Promise<Tree> {
    const call = treeCall(request)
    const answer = await this.#call('EVAL', async () =>
      treeAnswer(await this.#read.eval(TREE_SCRIPT, call.keys, call.args), request),
    )
    if (answer) return answer
    noIndex('tree')
    return this.#walked.tree(request)
  }

  /** Every key starting with `prefix`, sorted, each once: a walk of the whole keyspace. */
  scan(prefix: string): Promise<string[]> {
    return this.#call('SCAN', async () => {
      const found = new Set<string>()
      let cursor = '0'
      do {
        const page = await this.#scanPage(cursor, matchUnder(prefix))
        for (const key of page.keys) found.add(key)
        cursor = page.cursor
      } while (cursor !== '0')
      return [...found].sort()
    })
  }

  /** One SCAN page of SCAN_COUNT slots: the keys matching `match` among them, and the cursor to go on from ('0': done). */
  scanPage(cursor: string, match: string): Promise<{ cursor: string; keys: string[] }> {
    return this.#call('SCAN', () => this.#scanPage(cursor, match))
  }

  async #scanPage(cursor: string, match: string): Promise<{ cursor: string; keys: string[] }> {
    const [next, keys] = await this.#read.scan(cursor, { match, count: SCAN_COUNT })
    return { cursor: String(next), keys: keys.map(String) }
  }

  /** One EVAL that writes, sent once (the reconcile's: record-index.ts, reconcile.ts). */
  evalWrite(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    return this.#call('EVAL', () => this.#write.eval(script, [...keys], [...args]))
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

/**
 * The Upstash store as it was read before the record index: a listing is a
 * walk of the keyspace (SCAN), bounded by the read's deadline. Until the
 * scheduled reconcile's first pass, reads fall back to it, so that records
 * written straight into Redis are never missed.
 */
class Walked implements Store {
  readonly kind = 'upstash'

  constructor(readonly upstash: UpstashStore) {}

  async page(prefix: string, after: string, limit: number): Promise<Page> {
    return pageOf(await this.upstash.scan(prefix), after, limit)
  }

  values(keys: readonly string[]): Promise<(string | null)[]> {
    return this.upstash.values(keys)
  }

  valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within> {
    return this.upstash.valuesWithin(keys, maxBytes)
  }

  tree(request: TreeRequest): Promise<Tree> {
    const source =
      request.label === undefined
        ? { under: (prefix: string) => this.upstash.scan(prefix), valuesWithin: this.valuesWithin.bind(this) }
        : listedSource(new LabeledStore(this, request.label))
    return treeOf(source, request)
  }
}
