import { Redis } from '@upstash/redis/cloudflare'
import { ServiceError } from '../errors'
import { describeError } from '../log'
import { matchUnder } from './keys'
import type { Store } from './types'

/**
 * SCAN's COUNT is how many slots Redis visits per call, and a walk visits
 * every key of the database, not only the prefix's. Each page is one HTTP
 * request (and one subrequest of the Worker's budget), so pages are large:
 * a listing costs about (keys in the database / SCAN_COUNT) + 2 requests.
 */
const SCAN_COUNT = 10_000
/** Keys per MGET. Batches are issued together and auto-pipelined into one HTTP request. */
const MGET_BATCH = 500
/** The client's default (5 retries, exponential) can hold a request for seconds; an edge request would rather fail fast with a 503. */
const RETRIES = 2
const backoff = (n: number) => 25 * 2 ** n

/** URLs a client was made with once in this isolate: the client refuses a URL when it is made. */
const acceptedUrls = new Set<string>()

function clientFor(config: UpstashConfig): Redis {
  return new Redis({
    url: config.url,
    token: config.token,
    // Values are JSON text; the catalogue parses them so that a corrupt one
    // is reported as such instead of coming back as a string.
    automaticDeserialization: false,
    enableTelemetry: false,
    retry: { retries: RETRIES, backoff },
    signal: () => AbortSignal.timeout(config.timeoutMs),
  })
}

export interface UpstashConfig {
  url: string
  token: string
  /** Bound on one HTTP request to Upstash, retries included. */
  timeoutMs: number
}

/**
 * The store on Upstash Redis, over its REST protocol.
 *
 * A client is made per request rather than per isolate: auto-pipelining
 * batches promises, and in workerd a promise settled from another request's
 * I/O is an error. And only once the request reads Redis: making one defines
 * a closure per command (a few hundred), which cost more than anything else
 * in a render served from the cache, and in GET /health.
 */
export class UpstashStore implements Store {
  readonly kind = 'upstash'
  /**
   * The longest one command takes before it fails: the client makes its
   * timeout signal once per HTTP request, so it bounds the retries too. A
   * SCAN of several pages can take longer; whoever waits for it then reads
   * for itself (see flights.ts).
   */
  readonly readLimitMs: number
  readonly #config: UpstashConfig
  #client: Redis | undefined

  /** Throws what the client throws for a URL it refuses, as making a client would. */
  constructor(config: UpstashConfig) {
    this.readLimitMs = config.timeoutMs
    this.#config = config
    if (!acceptedUrls.has(config.url)) {
      clientFor(config)
      acceptedUrls.add(config.url)
    }
  }

  get #redis(): Redis {
    return (this.#client ??= clientFor(this.#config))
  }

  keys(prefix: string): Promise<string[]> {
    return this.#call('SCAN', async () => {
      const found = new Set<string>()
      let cursor = '0'
      do {
        const [next, page] = await this.#redis.scan(cursor, {
          match: matchUnder(prefix),
          count: SCAN_COUNT,
        })
        for (const key of page) found.add(String(key))
        cursor = String(next)
      } while (cursor !== '0')
      return [...found].sort()
    })
  }

  values(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return Promise.resolve([])
    return this.#call('MGET', async () => {
      const batches: Promise<(string | null)[]>[] = []
      for (let i = 0; i < keys.length; i += MGET_BATCH) {
        batches.push(this.#redis.mget<(string | null)[]>(...keys.slice(i, i + MGET_BATCH)))
      }
      return (await Promise.all(batches)).flat()
    })
  }

  async #call<T>(command: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (e) {
      throw new ServiceError('STORE_UNAVAILABLE', `Redis ${command} failed: ${redactCommand(describeError(e))}`, {
        cause: e,
      })
    }
  }
}

/** The client appends the whole command to its errors; keys are fine to show, but not the rest. */
function redactCommand(message: string): string {
  const at = message.indexOf(', command was:')
  return at === -1 ? message : message.slice(0, at)
}
