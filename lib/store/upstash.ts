import { ServiceError } from '../errors'
import { describeError } from '../log'
import { matchUnder } from './keys'
import type { Command, CommandStore, Reply, Store, Within } from './types'
import { withinAnswer, withinCommand } from './within'

/**
 * SCAN's COUNT is how many slots Redis visits per call, and a walk visits
 * every key of the database, not only the prefix's. Each page is one HTTP
 * request (and one subrequest of the Worker's budget), so pages are large:
 * a listing costs about (keys in the database / SCAN_COUNT) + 2 requests.
 */
const SCAN_COUNT = 10_000
/** Keys per MGET. A read's batches all go in one pipeline: one HTTP request. */
const MGET_BATCH = 500
/** Retries of a request that failed to reach Upstash; an edge request would rather fail fast with a 503. */
const RETRIES = 2
const backoff = (n: number) => 25 * 2 ** n

export interface UpstashConfig {
  url: string
  token: string
  /** Bound on one HTTP request to Upstash, retries included. */
  timeoutMs: number
}

/**
 * The store on Upstash Redis, over its REST protocol: each read is one
 * `POST /pipeline` of its commands (a JSON array of them; the answer, one
 * `{result}` or `{error}` each), each write one `POST /multi-exec`. A few
 * commands are all the Worker sends, so this is a fetch rather than
 * @upstash/redis, which bundles a class for every command (~90 KiB minified).
 * Values are JSON text, answered as they are stored: the catalogue parses
 * them, so that a corrupt one is reported as such.
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

  /** Throws when `url` is not http:// or https://. */
  constructor(config: UpstashConfig) {
    const url = new URL(config.url)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('not an http(s) URL')
    this.#base = url.href.replace(/\/+$/, '')
    this.#token = config.token
    this.readLimitMs = config.timeoutMs
  }

  keys(prefix: string): Promise<string[]> {
    return this.#call('SCAN', async () => {
      const found = new Set<string>()
      let cursor = '0'
      do {
        const [page] = await this.#send([['SCAN', cursor, 'MATCH', matchUnder(prefix), 'COUNT', String(SCAN_COUNT)]])
        const [next, keys] = page as [string, string[]]
        for (const key of keys) found.add(String(key))
        cursor = String(next)
      } while (cursor !== '0')
      return [...found].sort()
    })
  }

  values(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return Promise.resolve([])
    return this.#call('MGET', async () => {
      const batches: Command[] = []
      for (let i = 0; i < keys.length; i += MGET_BATCH) batches.push(['MGET', ...keys.slice(i, i + MGET_BATCH)])
      return ((await this.#send(batches)) as (string | null)[][]).flat()
    })
  }

  /** One EVAL: the script learns the sizes and reads the values only within the budget (within.ts). */
  valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within> {
    if (keys.length === 0) return Promise.resolve({ within: true, values: [] })
    return this.#call('EVAL', async () => withinAnswer((await this.#send([withinCommand(keys, maxBytes)]))[0]))
  }

  /** In-memory cache keys only: tells this database from others, and holds the token. */
  get identity(): string {
    return `${this.#base}\n${this.#token}`
  }

  transaction(commands: readonly Command[], writes: boolean): Promise<Reply[]> {
    return this.#call('MULTI/EXEC', () => this.#post('/multi-exec', commands, !writes))
  }

  /** The results of `commands`, in order; any command's error fails them all. */
  async #send(commands: Command[]): Promise<unknown[]> {
    return (await this.#post('/pipeline', commands, true)).map((reply) => {
      if (reply.error !== undefined) throw new Error(reply.error)
      return reply.result
    })
  }

  /**
   * One request of `commands`, answered with a reply each. A request that
   * fails to reach Upstash is sent again only when `retry`: a write may have
   * landed before its answer was lost, and is not made twice.
   */
  async #post(path: string, commands: readonly Command[], retry: boolean): Promise<Reply[]> {
    const signal = AbortSignal.timeout(this.readLimitMs)
    const init: RequestInit = {
      method: 'POST',
      headers: { authorization: `Bearer ${this.#token}`, 'content-type': 'application/json' },
      body: JSON.stringify(commands),
      signal,
    }
    let response: Response
    for (let attempt = 0; ; attempt++) {
      try {
        response = await fetch(this.#base + path, init)
        break
      } catch (e) {
        if (signal.aborted || !retry || attempt === RETRIES) throw signal.aborted ? signal.reason : e
        await new Promise((resolve) => setTimeout(resolve, backoff(attempt)))
      }
    }
    const body = (await response.json().catch(() => undefined)) as Reply | Reply[] | undefined
    if (!response.ok || !Array.isArray(body)) {
      const error = Array.isArray(body) ? undefined : body?.error
      throw new Error(error ?? `answered ${response.status} without a reply per command`)
    }
    return body
  }

  async #call<T>(command: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (e) {
      throw new ServiceError('STORE_UNAVAILABLE', `Redis ${command} failed: ${describeError(e)}`, { cause: e })
    }
  }
}
