import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { Redis } from '@upstash/redis'
import type { RedisConfigNodejs } from '@upstash/redis'
import { startRedis } from '../support/redis-server.js'
import type { RedisServer } from '../support/redis-server.js'
import { startBridge } from '../support/upstash-bridge.js'
import type { Bridge, BridgeStats } from '../support/upstash-bridge.js'

let server: RedisServer
let bridge: Bridge
const tokens: string[] = []

async function admin(method: string, path: string): Promise<unknown> {
  const res = await fetch(`${bridge.url}/__bridge/databases${path}`, { method })
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`)
  return res.json()
}

async function newDatabase(): Promise<{ token: string; db: number }> {
  const created = (await admin('POST', '')) as { token: string; db: number }
  tokens.push(created.token)
  return created
}

const stats = async (token: string): Promise<BridgeStats> => (await admin('GET', `/${token}/stats`)) as BridgeStats

function client(token: string, extra: Partial<RedisConfigNodejs> = {}): Redis {
  // Retries would only slow down a failing test; telemetry is noise here.
  return new Redis({ url: bridge.url, token, retry: false, enableTelemetry: false, ...extra })
}

/** Sends a raw Upstash request, for what the client never sends. */
async function raw(path: string, body: string, token?: string): Promise<[number, unknown]> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' }
  if (token) headers.Authorization = `Bearer ${token}`
  const res = await fetch(`${bridge.url}${path}`, { method: 'POST', headers, body })
  expect(res.headers.get('content-type')).toBe('application/json')
  return [res.status, await res.json()]
}

let redis: Redis
let token: string

beforeAll(async () => {
  server = await startRedis()
  bridge = await startBridge({ redisPort: server.port })
  ;({ token } = await newDatabase())
  redis = client(token)
})

afterAll(async () => {
  for (const t of tokens.splice(0)) await admin('DELETE', `/${t}`).catch(() => undefined)
  await bridge?.stop()
  await server?.stop()
})

describe('upstash bridge with the real @upstash/redis client', () => {
  it('round-trips a JSON object', async () => {
    const value = { name: 'prompt', tags: ['a', 'b'], nested: { n: 3, ok: true, none: null } }
    expect(await redis.set('json', value)).toBe('OK')
    expect(await redis.get('json')).toEqual(value)
  })

  it('round-trips non-ASCII text, the literal OK, and base64-looking text', async () => {
    // "abcd" and "test" are valid base64 themselves: unencoded they would be garbled.
    const values = ['héllo wörld ✓ 日本語 🚀', 'OK', 'abcd', 'test']
    for (const [i, value] of values.entries()) await redis.set(`text:${i}`, value)
    for (const [i, value] of values.entries()) expect(await redis.get(`text:${i}`)).toBe(value)
  })

  it('keeps hash replies flat so the client can build the object', async () => {
    await redis.hset('hash', { field: 'välue', count: 7 })
    expect(await redis.hgetall('hash')).toEqual({ field: 'välue', count: 7 })
  })

  it('mget returns values in order with null for a missing key', async () => {
    await redis.mset({ 'mget:1': 'one', 'mget:2': 'twö', 'mget:3': { x: 1 } })
    expect(await redis.mget('mget:1', 'mget:missing', 'mget:2', 'mget:3')).toEqual(['one', null, 'twö', { x: 1 }])
  })

  it('scan with match and count finds every matching key across cursor iterations', async () => {
    const expected = Array.from({ length: 50 }, (_, i) => `scan:item:${i}`)
    const p = redis.pipeline()
    for (const key of expected) p.set(key, 'v')
    for (let i = 0; i < 10; i++) p.set(`scan:other:${i}`, 'v')
    await p.exec()

    const found = new Set<string>()
    let cursor: string | number = '0'
    let iterations = 0
    do {
      const [next, keys]: [string | number, string[]] = await redis.scan(cursor, {
        match: 'scan:item:*',
        count: 10,
      })
      for (const key of keys) found.add(key)
      cursor = next
      iterations++
    } while (String(cursor) !== '0' && iterations < 1000)

    expect(iterations).toBeGreaterThan(1)
    expect([...found].sort()).toEqual([...expected].sort())
  })

  it('runs a pipeline in one request', async () => {
    const { token: own } = await newDatabase()
    const r = client(own)
    const results = await r.pipeline().set('p', 1).incr('p').get('p').del('p').get('p').exec()
    expect(results).toEqual(['OK', 2, 2, 1, null])
    expect(await stats(own)).toMatchObject({ requests: 1, commands: 5 })
  })

  it('runs a multi transaction', async () => {
    const results = await redis.multi().set('m', 'x').append('m', 'ÿ').get('m').strlen('m').exec()
    expect(results).toEqual(['OK', 3, 'xÿ', 3])
  })

  it('reports a per-command error inside a transaction without failing the rest', async () => {
    const results = await redis.multi().set('mx', 'text').incr('mx').get('mx').exec({ keepErrors: true })
    expect(results.map((r) => r.error)).toEqual([undefined, expect.stringMatching(/not an integer/), undefined])
    expect(results[2]?.result).toBe('text')
  })

  it('surfaces a Redis error as a thrown error, pipelined or not', async () => {
    await redis.set('notint', 'abc')
    await expect(redis.incr('notint')).rejects.toThrow(/not an integer/)
    // Without auto-pipelining the client uses POST / and gets HTTP 400.
    const direct = client(token, { enableAutoPipelining: false })
    await expect(direct.incr('notint')).rejects.toThrow(/not an integer/)
  })

  it('runs the next request holding a command to lose, and closes its connection unanswered', async () => {
    const { token: own } = await newDatabase()
    await admin('POST', `/${own}/lose-next/set`)
    const headers = { Authorization: `Bearer ${own}`, 'Content-Type': 'application/json' }
    const lost = fetch(`${bridge.url}/`, { method: 'POST', headers, body: '["SET","lost","landed"]' })
    await expect(lost).rejects.toThrow()
    expect(await client(own).get('lost')).toBe('landed')
    expect(await stats(own)).toMatchObject({ requests: 2 })
  })

  it('rejects a wrong token', async () => {
    const wrong = client('not-a-real-token')
    await expect(wrong.get('json')).rejects.toThrow(/Unauthorized/)
    const [status, body] = await raw('/', '["GET","json"]')
    expect([status, body]).toEqual([401, { error: 'Unauthorized' }])
  })

  it('answers malformed requests with 400 instead of crashing', async () => {
    const { token: own } = await newDatabase()
    expect(await raw('/', '{not json', own)).toEqual([400, { error: expect.any(String) }])
    expect(await raw('/pipeline', '[["GET", {"x":1}]]', own)).toEqual([400, { error: expect.any(String) }])
    expect(await raw('/', '["SET","n",42]', own)).toEqual([200, { result: 'OK' }])
    expect(await raw('/', '["GET","n"]', own)).toEqual([200, { result: '42' }])
  })

  it('isolates tokens from each other', async () => {
    const a = client((await newDatabase()).token)
    const b = client((await newDatabase()).token)
    await a.set('shared', 'from a')
    await b.set('shared', 'from b')
    await a.set('only-a', 1)
    expect(await a.get('shared')).toBe('from a')
    expect(await b.get('shared')).toBe('from b')
    expect(await b.exists('only-a')).toBe(0)
    await b.flushall()
    expect(await a.dbsize()).toBe(2)
  })

  it('counts requests, the commands they carried and the bytes they sent, and resets', async () => {
    const { token: own } = await newDatabase()
    const r = client(own)
    await r.set('s', '1')
    await r.get('s')
    expect(await stats(own)).toMatchObject({ requests: 2, commands: 2 })
    await r.pipeline().get('s').get('s').get('s').exec()
    expect(await stats(own)).toMatchObject({ requests: 3, commands: 5, byCommand: { SET: 1, GET: 4 } })
    await admin('POST', `/${own}/stats/reset`)
    expect(await stats(own)).toEqual({ requests: 0, commands: 0, bytes: 0, byCommand: {} })
    const body = JSON.stringify(['MGET', 'k'.repeat(1000), 'ü'])
    const res = await fetch(bridge.url, { method: 'POST', headers: { authorization: `Bearer ${own}` }, body })
    expect(res.status).toBe(200)
    expect(await stats(own)).toEqual({
      requests: 1,
      commands: 1,
      bytes: Buffer.byteLength(body),
      byCommand: { MGET: 1 },
    })
  })

  it("fills a database with filler keys, half another application's and half chat histories, uncounted", async () => {
    const { token: own } = await newDatabase()
    const res = await fetch(`${bridge.url}/__bridge/databases/${own}/fill`, { method: 'POST', body: '{"count":25001}' })
    expect(res.status).toBe(200)
    expect(await stats(own)).toMatchObject({ requests: 0, commands: 0 })
    const r = client(own)
    expect(await r.dbsize()).toBe(25_001)
    expect(await r.get('otherapp:session:12499')).toBe('s12499')
    expect(await r.exists('otherapp:session:12500')).toBe(0)
    expect(await r.get('shenma:environs:chat:history:12500')).toMatchObject({ role: 'user', content: 'message 12500' })
    const bad = await fetch(`${bridge.url}/__bridge/databases/${own}/fill`, { method: 'POST', body: '{"count":-1}' })
    expect(bad.status).toBe(400)
  })

  it('delays every request of a database by its added latency, and only that database', async () => {
    const { token: slow } = await newDatabase()
    const { token: fast } = await newDatabase()
    await fetch(`${bridge.url}/__bridge/databases/${slow}/latency`, { method: 'POST', body: '{"ms":300}' })
    const ping = async (t: string): Promise<number> => {
      const started = performance.now()
      await client(t).get('x')
      return performance.now() - started
    }
    expect(await ping(slow)).toBeGreaterThanOrEqual(300)
    expect(await ping(fast)).toBeLessThan(300)
  })

  it('closes every request of a database that is down unanswered, until it is back', async () => {
    const { token: own } = await newDatabase()
    await client(own).set('k', 'v')
    await admin('POST', `/${own}/down`)
    const headers = { Authorization: `Bearer ${own}`, 'Content-Type': 'application/json' }
    await expect(fetch(`${bridge.url}/`, { method: 'POST', headers, body: '["GET","k"]' })).rejects.toThrow()
    await admin('DELETE', `/${own}/down`)
    expect(await client(own).get('k')).toBe('v')
  })

  it('returns raw strings with automaticDeserialization: false', async () => {
    await redis.set('raw:json', { a: 1 })
    await redis.set('raw:num', 42)
    const rawClient = client(token, { automaticDeserialization: false })
    expect(await rawClient.get('raw:json')).toBe('{"a":1}')
    expect(await rawClient.get('raw:num')).toBe('42')
    expect(await redis.get('raw:num')).toBe(42)
  })

  it('serves plain UTF-8 when the client does not ask for base64', async () => {
    const plain = client(token, { responseEncoding: false })
    await plain.set('plain', 'ünïcode ✓')
    expect(await plain.get('plain')).toBe('ünïcode ✓')
    expect(await plain.mget('plain', 'nope')).toEqual(['ünïcode ✓', null])
  })

  it('freeing a database revokes its token', async () => {
    const { token: own } = await newDatabase()
    await client(own).set('k', 'v')
    await admin('DELETE', `/${own}`)
    tokens.splice(tokens.indexOf(own), 1)
    await expect(client(own).get('k')).rejects.toThrow(/Unauthorized/)
    const again = await newDatabase()
    expect(await client(again.token).dbsize()).toBe(0)
  })
})
