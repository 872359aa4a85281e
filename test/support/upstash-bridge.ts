// A local stand-in for the Upstash REST API, so the real @upstash/redis client
// can be tested against a real redis-server. Each token owns one logical
// database, which keeps concurrently running tests apart.
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { setTimeout as delay } from 'node:timers/promises'
import { closeNow, listenOnLoopback } from './ports'
import type { Redis as RedisClient } from 'ioredis'
import { messageOf } from './serving'

// Loaded with Node's own require: under the workerd test project's Vite
// transform, ioredis's CommonJS exports come through without the Redis class.
const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis')
type Redis = RedisClient

export interface Bridge {
  url: string
  stop(): Promise<void>
}

export interface BridgeStats {
  requests: number
  commands: number
  /** Bytes of the request bodies received: what a client sent to Redis. */
  bytes: number
  /** The commands received, counted by name (upper case; EVALSHA and EVAL apart): `{ MGET: 3, SCAN: 2 }`. */
  byCommand: Record<string, number>
}

type Command = [string, ...string[]]

/** Commands a database's log keeps at most (later ones are not kept): a log is for tests that send a few. */
const MAX_LOGGED = 10_000

/** Filler keys a fill may ask for, and how many one script writes (each script holds Redis for a few ms). */
const MAX_FILL = 10_000_000
const FILL_BATCH = 10_000
/** The added latency a database may be given, in ms. */
const MAX_LATENCY_MS = 60_000
/** The largest admin request body read (a `{count}` or `{ms}`). */
const MAX_ADMIN_BODY = 1024

// Writes keys ARGV[3] .. ARGV[3] + ARGV[4] - 1 of one kind of filler, all in Redis: no key crosses the wire.
// ARGV[1] is the key prefix, ARGV[2] the kind ('other' or 'history'), which picks the value.
const FILL_SCRIPT = `
local prefix, kind, from, n = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
for i = from, from + n - 1 do
  local value
  if kind == 'history' then
    value = '{"role":"user","content":"message ' .. i .. '","at":' .. (1700000000000 + i) .. '}'
  else
    value = 's' .. i
  end
  redis.call('SET', prefix .. i, value)
end
return n`

/** The two kinds of filler: another application's keys, and the chat histories other modules keep under shenma:environs:. */
const FILLERS = [
  { prefix: 'otherapp:session:', kind: 'other' },
  { prefix: 'shenma:environs:chat:history:', kind: 'history' },
] as const

interface Database {
  db: number
  stats: BridgeStats
  /** The commands received since the last reset of the stats, as sent. */
  log: Command[]
  client?: Redis
  /** While set, Upstash requests with this token wait for it: a Redis that stopped answering. */
  stall?: { until: Promise<void>; release: () => void }
  /** While set, Upstash requests with this token have their connection closed unanswered: a Redis that is gone. */
  down?: boolean
  /** Added to every Upstash request with this token before it runs, in ms: a Redis a region away. */
  latencyMs: number
  /**
   * The name of a command that fails in the next transaction holding it: its first one is sent
   * without arguments, so Redis refuses to queue it and runs none of the transaction (EXECABORT),
   * as it does with a command refused for memory.
   */
  failNext?: string
  /**
   * The name of a command whose next request runs in Redis and is never answered: the bridge
   * closes its connection instead, as when an answer is lost on its way back.
   */
  loseNext?: string
}

// redis-server is started with --databases 256; 0 is left alone so that a
// stray client without a db option never lands in a test's data.
const FIRST_DB = 1
const DB_COUNT = 256

// These would change the state of the connection every request for a token
// shares (or leave it unusable), breaking isolation between tests.
const REJECTED_COMMANDS = new Set([
  'SELECT',
  'SWAPDB',
  'QUIT',
  'RESET',
  'MONITOR',
  'SUBSCRIBE',
  'PSUBSCRIBE',
  'SSUBSCRIBE',
])

/** Thrown once a request ran whose answer is to be lost: its connection is closed unanswered. */
class LostAnswer extends Error {}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export async function startBridge(opts: { redisPort: number }): Promise<Bridge> {
  const databases = new Map<string, Database>()

  const clientFor = (database: Database): Redis => {
    database.client ??= new Redis({
      host: '127.0.0.1',
      port: opts.redisPort,
      db: database.db,
      // ioredis 6 defaults to RESP3; RESP2 replies are what Upstash serves.
      protocol: 2,
    })
    return database.client
  }

  const closeClient = async (database: Database): Promise<void> => {
    const client = database.client
    database.client = undefined
    if (client) await client.quit().catch(() => client.disconnect())
  }

  const allocate = async (): Promise<unknown> => {
    const used = new Set([...databases.values()].map((d) => d.db))
    let db = FIRST_DB
    while (used.has(db)) db++
    if (db >= DB_COUNT) throw new HttpError(503, 'all Redis databases are allocated')

    // Hex, as no real token starts with '-': the CLI's `--token -x...` would read as an option.
    const token = randomBytes(24).toString('hex')
    const database: Database = { db, stats: emptyStats(), log: [], latencyMs: 0 }
    databases.set(token, database)
    // A previous user of this number may have left data behind.
    await clientFor(database).callBuffer('FLUSHDB')
    return { token, db }
  }

  const lookup = (token: string): Database => {
    const database = databases.get(token)
    if (!database) throw new HttpError(404, 'unknown token')
    return database
  }

  const free = async (token: string): Promise<unknown> => {
    const database = lookup(token)
    databases.delete(token)
    database.stall?.release()
    await clientFor(database).callBuffer('FLUSHDB')
    await closeClient(database)
    return { ok: true }
  }

  /** Half `otherapp:session:<n>` (short values), half `shenma:environs:chat:history:<n>` (small JSON), n from 0. */
  const fill = async (database: Database, count: number): Promise<unknown> => {
    const client = clientFor(database)
    const batch = client.pipeline()
    const [other, history] = FILLERS
    const halves = [
      { ...other, n: Math.floor(count / 2) },
      { ...history, n: count - Math.floor(count / 2) },
    ]
    for (const { prefix, kind, n } of halves) {
      for (let from = 0; from < n; from += FILL_BATCH) {
        batch.eval(FILL_SCRIPT, 0, prefix, kind, from, Math.min(FILL_BATCH, n - from))
      }
    }
    const replies = (await batch.exec()) ?? []
    const failed = replies.find(([error]) => error)
    if (failed?.[0]) throw new HttpError(500, `fill failed: ${failed[0].message}`)
    return { ok: true, keys: count }
  }

  const admin = async (req: IncomingMessage, path: string): Promise<unknown> => {
    const method = req.method ?? ''
    const parts = path.split('/').filter(Boolean).slice(2) // drop "__bridge", "databases"
    if (method === 'POST' && parts.length === 0) return allocate()
    const [token, ...rest] = parts
    if (token !== undefined) {
      const sub = rest.join('/')
      if (method === 'DELETE' && sub === '') return free(token)
      if (method === 'GET' && sub === 'stats') return { ...lookup(token).stats }
      if (method === 'GET' && sub === 'commands') return lookup(token).log
      if (method === 'POST' && sub === 'stats/reset') {
        lookup(token).stats = emptyStats()
        lookup(token).log = []
        return { ok: true }
      }
      if (method === 'POST' && sub === 'stall') {
        const database = lookup(token)
        let release = () => {}
        const until = new Promise<void>((resolve) => (release = resolve))
        database.stall ??= { until, release }
        return { ok: true }
      }
      if (method === 'POST' && sub === 'fill') {
        const database = lookup(token)
        return fill(database, bounded(await adminBody(req), 'count', MAX_FILL))
      }
      if (method === 'POST' && sub === 'latency') {
        const database = lookup(token)
        database.latencyMs = bounded(await adminBody(req), 'ms', MAX_LATENCY_MS)
        return { ok: true }
      }
      if ((method === 'POST' || method === 'DELETE') && sub === 'down') {
        lookup(token).down = method === 'POST'
        return { ok: true }
      }
      if (method === 'POST' && sub.startsWith('fail-next/')) {
        lookup(token).failNext = sub.slice('fail-next/'.length).toUpperCase()
        return { ok: true }
      }
      if (method === 'POST' && sub.startsWith('lose-next/')) {
        lookup(token).loseNext = sub.slice('lose-next/'.length).toUpperCase()
        return { ok: true }
      }
      if (method === 'DELETE' && sub === 'stall') {
        const database = lookup(token)
        database.stall?.release()
        database.stall = undefined
        return { ok: true }
      }
    }
    throw new HttpError(404, `no admin route ${method} ${path}`)
  }

  const upstash = async (req: IncomingMessage, path: string): Promise<[number, unknown]> => {
    const database = databases.get(bearerToken(req) ?? '')
    if (!database) return [401, { error: 'Unauthorized' }]
    database.stats.requests++
    if (database.latencyMs > 0) await delay(database.latencyMs)
    if (database.down) throw new LostAnswer()
    await database.stall?.until

    if (req.method !== 'POST') throw new HttpError(405, `method ${req.method} is not allowed`)
    if (path !== '/' && path !== '/pipeline' && path !== '/multi-exec') {
      throw new HttpError(404, `unsupported path ${path}`)
    }

    const text = await readText(req)
    database.stats.bytes += Buffer.byteLength(text)
    const body = parseJson(text)
    const commands = path === '/' ? [toCommand(body)] : toCommands(body)
    database.stats.commands += commands.length
    for (const [name] of commands) database.stats.byCommand[name] = (database.stats.byCommand[name] ?? 0) + 1
    database.log.push(...commands.slice(0, MAX_LOGGED - database.log.length))

    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64'
    const lose = commands.some(([name]) => name === database.loseNext)
    if (lose) database.loseNext = undefined
    const answer = await execute(database, path, commands, base64)
    if (lose) throw new LostAnswer()
    return answer
  }

  const execute = async (
    database: Database,
    path: string,
    commands: Command[],
    base64: boolean,
  ): Promise<[number, unknown]> => {
    const client = clientFor(database)

    if (path === '/') {
      const [command] = commands as [Command]
      try {
        return [200, { result: encode(await client.callBuffer(...command), base64) }]
      } catch (error) {
        return [400, { error: messageOf(error) }]
      }
    }

    // ioredis sends a whole pipeline (or MULTI..EXEC) in one write: one round trip.
    const batch = path === '/multi-exec' ? client.multi() : client.pipeline()
    const failing = path === '/multi-exec' ? commands.findIndex(([name]) => name === database.failNext) : -1
    if (failing !== -1) database.failNext = undefined
    commands.forEach((command, i) => (i === failing ? batch.callBuffer(command[0]) : batch.callBuffer(...command)))
    let replies: [Error | null, unknown][] | null
    try {
      replies = await batch.exec()
    } catch (error) {
      // EXECABORT: a command could not be queued, so nothing ran at all.
      return [400, { error: execAbortMessage(error) }]
    }
    if (!replies) throw new HttpError(500, 'transaction was aborted')
    return [
      200,
      replies.map(([error, reply]) => (error ? { error: error.message } : { result: encode(reply, base64) })),
    ]
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://bridge').pathname
    let status = 200
    let payload: unknown
    try {
      if (path === '/__bridge/databases' || path.startsWith('/__bridge/databases/')) {
        payload = await admin(req, path)
      } else {
        ;[status, payload] = await upstash(req, path)
      }
    } catch (error) {
      if (error instanceof LostAnswer) return void res.destroy()
      status = error instanceof HttpError ? error.status : 500
      payload = { error: messageOf(error) }
    }
    res.writeHead(status, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(payload))
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // Only reachable if writing the response itself failed.
      res.destroy(error instanceof Error ? error : undefined)
    })
  })
  const port = await listenOnLoopback(server)

  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      // The client uses keep-alive; idle sockets would otherwise hold close() open.
      await closeNow(server)
      const all = [...databases.values()]
      databases.clear()
      for (const database of all) database.stall?.release()
      await Promise.all(all.map(closeClient))
    },
  }
}

function emptyStats(): BridgeStats {
  return { requests: 0, commands: 0, bytes: 0, byCommand: {} }
}

async function adminBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_ADMIN_BODY) throw new HttpError(413, `admin body over ${MAX_ADMIN_BODY} bytes`)
    chunks.push(chunk as Buffer)
  }
  return parseJson(Buffer.concat(chunks).toString('utf8'))
}

/** `body[field]`, a whole number from 0 to `max`. */
function bounded(body: unknown, field: string, max: number): number {
  const value = (body as Record<string, unknown> | null)?.[field]
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new HttpError(400, `expected {"${field}": a whole number from 0 to ${max}}`)
  }
  return value
}

function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')
  return match?.[1]
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(400, `malformed JSON body: ${messageOf(error)}`)
  }
}

function toCommands(body: unknown): Command[] {
  if (!Array.isArray(body) || body.length === 0) {
    throw new HttpError(400, 'expected a non-empty JSON array of commands')
  }
  return body.map(toCommand)
}

function toCommand(body: unknown): Command {
  if (!Array.isArray(body) || body.length === 0) {
    throw new HttpError(400, 'expected a command as a non-empty JSON array')
  }
  const args = body.map((arg: unknown) => {
    if (typeof arg === 'string') return arg
    // The client passes numbers and booleans through unserialised (mset of
    // `true`); Upstash stores their text.
    if (typeof arg === 'number' || typeof arg === 'boolean') return String(arg)
    throw new HttpError(400, `command arguments must be strings, numbers or booleans, got ${JSON.stringify(arg)}`)
  })
  // Upper case keeps ioredis's reply transformers (keyed by lower-case names,
  // e.g. hgetall -> object) out of the way, so replies keep Redis's shape.
  const name = (args[0] ?? '').toUpperCase()
  if (REJECTED_COMMANDS.has(name)) {
    throw new HttpError(400, `ERR ${name} is not supported by the Upstash test bridge`)
  }
  // FLUSHALL would wipe every other test's database too.
  return [name === 'FLUSHALL' ? 'FLUSHDB' : name, ...args.slice(1)]
}

// Mirrors Upstash: with base64 encoding every string, however deeply nested,
// is encoded; numbers and nil pass through.
function encode(reply: unknown, base64: boolean): unknown {
  if (reply === null || reply === undefined) return null
  if (typeof reply === 'number') return reply
  if (Array.isArray(reply)) return reply.map((item: unknown) => encode(item, base64))
  if (Buffer.isBuffer(reply)) return base64 ? reply.toString('base64') : reply.toString('utf8')
  // Errors nested in an array reply (e.g. from EVAL) have no other JSON form.
  const text = reply instanceof Error ? reply.message : String(reply)
  return base64 ? Buffer.from(text, 'utf8').toString('base64') : text
}

function execAbortMessage(error: unknown): string {
  const previous = (error as { previousErrors?: unknown }).previousErrors
  const causes = Array.isArray(previous) ? previous.map(messageOf) : []
  return causes.length > 0 ? `${messageOf(error)} ${causes.join('; ')}` : messageOf(error)
}
