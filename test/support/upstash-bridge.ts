// The tests' Upstash bridge: the dev tool's (dev/upstash-bridge.ts), with an
// admin API under /__bridge/databases that hands each test file a database
// (and a token) of its own, counts what a database was sent, and breaks it on
// demand: an added latency, a stall, a Redis gone, a failed transaction, a
// lost answer, a keyspace filled with other applications' keys.
import type { IncomingMessage } from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'
import { HttpError, LostAnswer, parseJson, readText, startBridge as startUpstashBridge } from '../../dev/upstash-bridge'
import type { Command, Hooks } from '../../dev/upstash-bridge'
import { DATABASES } from './redis-server'

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

// Database 0 is left alone so that a stray client without a db option never lands in a test's data.
const FIRST_DB = 1

interface Database {
  db: number
  stats: BridgeStats
  /** The commands received since the last reset of the stats, as sent. */
  log: Command[]
  /** While set, Upstash requests with this token wait for it: a Redis that stopped answering. */
  stall?: { until: Promise<void>; release: () => void }
  /** While set, Upstash requests with this token have their connection closed unanswered: a Redis that is gone. */
  down?: boolean
  /** Added to every Upstash request with this token before it runs, in ms: a Redis a region away. */
  latencyMs: number
  /** The name of a command whose next transaction fails as a whole (EXECABORT): see Hooks.failing. */
  failNext?: string
  /** The name of a command whose next request runs in Redis and is never answered: see Hooks.loses. */
  loseNext?: string
}

/** The hooks that count a database's requests and break it as its admin routes asked. */
function hooksOf(database: Database): Hooks {
  return {
    async arrived() {
      database.stats.requests++
      if (database.latencyMs > 0) await delay(database.latencyMs)
      if (database.down) throw new LostAnswer()
      await database.stall?.until
    },
    received(commands, bytes) {
      const { stats } = database
      stats.bytes += bytes
      stats.commands += commands.length
      for (const [name] of commands) stats.byCommand[name] = (stats.byCommand[name] ?? 0) + 1
      database.log.push(...commands.slice(0, MAX_LOGGED - database.log.length))
    },
    failing(commands) {
      const failing = commands.findIndex(([name]) => name === database.failNext)
      if (failing !== -1) database.failNext = undefined
      return failing
    },
    loses(commands) {
      const lose = commands.some(([name]) => name === database.loseNext)
      if (lose) database.loseNext = undefined
      return lose
    },
  }
}

export async function startBridge(opts: { redisPort: number }): Promise<Bridge> {
  const databases = new Map<string, Database>()
  /** The database numbers given out, taken before their token exists: two allocations at once get two. */
  const allocated = new Set<number>()

  const allocate = async (): Promise<unknown> => {
    let db = FIRST_DB
    while (allocated.has(db)) db++
    if (db >= DATABASES) throw new HttpError(503, 'all Redis databases are allocated')
    allocated.add(db)
    const database: Database = { db, stats: emptyStats(), log: [], latencyMs: 0 }
    const token = await bridge.open(db, hooksOf(database))
    databases.set(token, database)
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
    await bridge.close(token)
    allocated.delete(database.db)
    return { ok: true }
  }

  /** Half `otherapp:session:<n>` (short values), half `shenma:environs:chat:history:<n>` (small JSON), n from 0. */
  const fill = async (token: string, count: number): Promise<unknown> => {
    const batch = bridge.client(token).pipeline()
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
        lookup(token)
        return fill(token, bounded(await adminBody(req), 'count', MAX_FILL))
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

  const bridge = await startUpstashBridge({
    redisPort: opts.redisPort,
    route: (req, path) =>
      path === '/__bridge/databases' || path.startsWith('/__bridge/databases/') ? admin(req, path) : undefined,
  })

  return {
    url: bridge.url,
    async stop() {
      const all = [...databases.values()]
      databases.clear()
      for (const database of all) database.stall?.release()
      await bridge.stop()
    },
  }
}

function emptyStats(): BridgeStats {
  return { requests: 0, commands: 0, bytes: 0, byCommand: {} }
}

async function adminBody(req: IncomingMessage): Promise<unknown> {
  return parseJson(await readText(req, MAX_ADMIN_BODY))
}

/** `body[field]`, a whole number from 0 to `max`. */
function bounded(body: unknown, field: string, max: number): number {
  const value = (body as Record<string, unknown> | null)?.[field]
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new HttpError(400, `expected {"${field}": a whole number from 0 to ${max}}`)
  }
  return value
}
