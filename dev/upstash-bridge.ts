// Upstash's REST protocol in front of a real redis-server, so that the real
// @upstash/redis client (the Worker's, the CLI's) talks to a local Redis:
// `npm run dev:redis` serves through it, and the tests add their faults and
// counts on top (test/support/upstash-bridge.ts). Each token names one logical
// database of the server.
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { Redis as RedisClient } from 'ioredis'
import { describeError } from '../lib/log'
import { closeNow, listenOnLoopback } from './ports'

// Loaded with Node's own require: under the workerd test project's Vite
// transform, ioredis's CommonJS exports come through without the Redis class.
const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis')
export type Redis = RedisClient

/** One command as Upstash receives it: its name (upper case) and its arguments. */
export type Command = [string, ...string[]]

/** What a layer over the bridge does to one token's requests (the tests: counts, delays, lost answers). */
export interface Hooks {
  /** Called first, before the request is read: may wait (a slow or stalled Redis) or throw LostAnswer (one gone). */
  arrived?(): Promise<void>
  /** The request's commands, as parsed, and the bytes of its body. */
  received?(commands: readonly Command[], bytes: number): void
  /**
   * The index of a transaction's command to send without its arguments, so that Redis refuses to queue it and
   * runs none of the transaction (EXECABORT), as with a command refused for memory; -1 for none.
   */
  failing?(commands: readonly Command[]): number
  /** Whether the request's answer is lost: it runs in Redis, then its connection is closed unanswered. */
  loses?(commands: readonly Command[]): boolean
}

export interface Bridge {
  /** http://127.0.0.1:PORT, the UPSTASH_REDIS_REST_URL of every database. */
  url: string
  /** A new token (hex) for database `db` of the server, which is emptied first (a previous user may have left data). */
  open(db: number, hooks?: Hooks): Promise<string>
  /** Empties a token's database and forgets the token. */
  close(token: string): Promise<void>
  /** The Redis connection of a token's database, for commands of the layer's own. */
  client(token: string): Redis
  stop(): Promise<void>
}

export interface BridgeOptions {
  redisPort: number
  /** Routes of a layer over the bridge: answers a request's JSON, or undefined when the path is not one of its own. */
  route?: (req: IncomingMessage, path: string) => Promise<unknown> | undefined
}

/** An error answered with its status and `{"error": message}`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** Thrown once a request ran whose answer is to be lost: its connection is closed unanswered. */
export class LostAnswer extends Error {}

interface Database {
  db: number
  hooks: Hooks
  client?: Redis
}

// These would change the state of the connection every request for a token
// shares (or leave it unusable), breaking the databases apart.
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

/** The largest request body read: Upstash's own limit is 1 MB per request on its free plan, 10 MB above it. */
const MAX_BODY = 10 * 1024 * 1024

export async function startBridge(options: BridgeOptions): Promise<Bridge> {
  const databases = new Map<string, Database>()

  const clientFor = (database: Database): Redis => {
    database.client ??= new Redis({
      host: '127.0.0.1',
      port: options.redisPort,
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

  const lookup = (token: string): Database => {
    const database = databases.get(token)
    if (!database) throw new HttpError(404, 'unknown token')
    return database
  }

  const upstash = async (req: IncomingMessage, path: string): Promise<[number, unknown]> => {
    const database = databases.get(bearerToken(req) ?? '')
    if (!database) return [401, { error: 'Unauthorized' }]
    const { hooks } = database
    await hooks.arrived?.()

    if (req.method !== 'POST') throw new HttpError(405, `method ${req.method} is not allowed`)
    if (path !== '/' && path !== '/pipeline' && path !== '/multi-exec') {
      throw new HttpError(404, `unsupported path ${path}`)
    }

    const text = await readText(req, MAX_BODY)
    const body = parseJson(text)
    const commands = path === '/' ? [toCommand(body)] : toCommands(body)
    hooks.received?.(commands, Buffer.byteLength(text))

    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64'
    const lose = hooks.loses?.(commands) ?? false
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
        return [400, { error: describeError(error) }]
      }
    }

    // ioredis sends a whole pipeline (or MULTI..EXEC) in one write: one round trip.
    const batch = path === '/multi-exec' ? client.multi() : client.pipeline()
    const failing = path === '/multi-exec' ? (database.hooks.failing?.(commands) ?? -1) : -1
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
      const routed = options.route?.(req, path)
      if (routed) payload = await routed
      else [status, payload] = await upstash(req, path)
    } catch (error) {
      if (error instanceof LostAnswer) return void res.destroy()
      status = error instanceof HttpError ? error.status : 500
      payload = { error: describeError(error) }
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
    async open(db, hooks = {}) {
      // Hex, as no real token starts with '-': the CLI's `--token -x...` would read as an option.
      const token = randomBytes(24).toString('hex')
      const database: Database = { db, hooks }
      databases.set(token, database)
      await clientFor(database).callBuffer('FLUSHDB')
      return token
    },
    async close(token) {
      const database = lookup(token)
      databases.delete(token)
      await clientFor(database).callBuffer('FLUSHDB')
      await closeClient(database)
    },
    client: (token) => clientFor(lookup(token)),
    async stop() {
      // The client uses keep-alive; idle sockets would otherwise hold close() open.
      await closeNow(server)
      const all = [...databases.values()]
      databases.clear()
      await Promise.all(all.map(closeClient))
    },
  }
}

function bearerToken(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')
  return match?.[1]
}

/** A request's body as text, or a 413 once it passes `max` bytes. */
export async function readText(req: IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > max) throw new HttpError(413, `request body over ${max} bytes`)
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** `text` as JSON, or a 400 saying why not. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(400, `malformed JSON body: ${describeError(error)}`)
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
    throw new HttpError(400, `ERR ${name} is not supported by the Upstash bridge (dev/upstash-bridge.ts)`)
  }
  // FLUSHALL would wipe every other token's database too.
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
  const causes = Array.isArray(previous) ? previous.map(describeError) : []
  return causes.length > 0 ? `${describeError(error)} ${causes.join('; ')}` : describeError(error)
}
