// Issue 29: the record index. Upstash answers Store.page and Store.tree from
// one EVAL on it exactly as the in-memory store answers them from its sorted
// keys (labels and budgets included); the scheduled handler lists what was
// written straight into Redis, writes through the service are listed at once,
// and before the first reconcile reads walk the keyspace as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { EmbeddedStore, INDEX_KEY, TOMBSTONE, UpstashStore } from '../../lib/store'
import { ADMIN, fetchWorker, freshRedis, get, logged, runScheduled, writableRedis } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { reconciled } from '../support/reconciled'

/** A write through the service, as an admin. */
async function write(env: Env, method: string, path: string, body?: unknown): Promise<number> {
  const res = await fetchWorker(env, path, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return res.status
}

const RECORDS: Record<string, unknown> = {
  'shenma:environs:a': { top: true },
  'shenma:environs:a:x': 1,
  'shenma:environs:a:y:z': 'deep',
  'shenma:environs:a:é': 'accent',
  'shenma:environs:ab': 'sibling',
  'shenma:environs:b:one': 'b1',
  'shenma:environs:big:k1': 'x'.repeat(300),
  'shenma:environs:big:k2': 'y'.repeat(300),
  'shenma:templates:t:p': { prompt: 'hi' },
  'shenma:tools:m:t': { name: 't' },
  // A label: its own value, a tombstone hiding a base key, a key of its own, a tombstone of nothing.
  'shenma:labels:l1:environs:a:x': 2,
  'shenma:labels:l1:environs:a:y:z': JSON.parse(TOMBSTONE),
  'shenma:labels:l1:environs:a:w': 'own',
  'shenma:labels:l1:environs:c:gone': JSON.parse(TOMBSTONE),
  'shenma:labels:l1:environs:big:k1': 'small',
  // Not records: never listed.
  'shenma:history:seq:environs:a:x': 3,
  'other:app:1': 'o',
}

describe('before the first reconcile', () => {
  it('walks the keyspace, warning once per isolate, and misses nothing', async () => {
    const db = await freshRedis()
    await db.redis.set('shenma:environs:walk:a', JSON.stringify('walked'))
    await db.resetRequests()
    const { result, lines } = await logged(() => get(db.env, '/api/environs/walk'))
    expect(result).toMatchObject({ status: 200, body: { data: { a: 'walked' } } })
    // The tree's EVAL answers "no index", then the walk: a SCAN page, and the values within the budget.
    expect(await db.counts()).toMatchObject({ SCAN: 1 })
    const warned = JSON.stringify(lines)
    expect(warned).toContain('the record index is not ready')
    await db.release()
  })
})

describe('the record index, against the in-memory store', () => {
  let db: TestRedis
  let upstash: UpstashStore
  // What the index holds: the records, not the other keys.
  const embedded = new EmbeddedStore(Object.entries(RECORDS).filter(([key]) => !/^(other|shenma:history):/.test(key)))

  beforeAll(async () => {
    db = await freshRedis()
    await db.redis.mset(Object.fromEntries(Object.entries(RECORDS).map(([k, v]) => [k, JSON.stringify(v)])))
    await reconciled(db)
    upstash = new UpstashStore({
      url: db.env.UPSTASH_REDIS_REST_URL as string,
      token: db.env.UPSTASH_REDIS_REST_TOKEN as string,
      timeoutMs: 5000,
    })
  })
  afterAll(() => db.release())

  it('holds every record key, overlays and tombstones included, and no other key', async () => {
    const members = await db.redis.zrange(INDEX_KEY, 0, -1)
    expect(members).toEqual(
      Object.keys(RECORDS)
        .filter((k) => !/^(other|shenma:history):/.test(k))
        .sort(),
    )
  })

  const trees: [string, string[], string[], string[], number, string?][] = [
    [
      'a key, its subtree and probes',
      ['shenma:environs:a'],
      ['shenma:environs:a:'],
      ['shenma:environs:', 'shenma:environs:zz:'],
      1e6,
    ],
    ['two overlapping prefixes', ['shenma:environs:a:x'], ['shenma:environs:a:', 'shenma:environs:a:y:'], [], 1e6],
    ['a subtree past the budget by its values', [], ['shenma:environs:big:'], [], 500],
    ['a subtree past the budget by its names', [], ['shenma:environs:'], [], 60],
    ['keys asked past the budget', ['shenma:environs:big:k1', 'shenma:environs:big:k2'], [], [], 400],
    [
      'as a label sees it',
      ['shenma:environs:a', 'shenma:environs:a:x'],
      ['shenma:environs:a:', 'shenma:environs:c:'],
      ['shenma:environs:c:', 'shenma:environs:a:y:'],
      1e6,
      'l1',
    ],
    ['within the budget as a label sees it', [], ['shenma:environs:big:'], [], 400, 'l1'],
  ]
  for (const [name, keys, prefixes, probes, maxBytes, label] of trees) {
    it(`reads a tree in one EVAL as the in-memory store does: ${name}`, async () => {
      await db.resetRequests()
      const request = { keys, prefixes, probes, maxBytes, label }
      expect(await upstash.tree(request)).toEqual(await embedded.tree(request))
      expect(await db.counts()).toEqual({ EVAL: 1 })
    })
  }

  it('reads pages in one EVAL each, in byte order, as the in-memory store does', async () => {
    for (const [prefix, after, limit] of [
      ['shenma:environs:', '', 3],
      ['shenma:environs:', 'shenma:environs:a:x', 3],
      ['shenma:environs:a:', '', 100],
      ['shenma:', 'shenma:environs:zz', 2],
      ['shenma:labels:l1:environs:', '', 10],
    ] as const) {
      await db.resetRequests()
      expect(await upstash.page(prefix, after, limit)).toEqual(await embedded.page(prefix, after, limit))
      expect(await db.counts()).toEqual({ EVAL: 1 })
    }
  })
})

describe('what keeps the index', () => {
  let db: TestRedis
  let env: Env

  beforeAll(async () => {
    ;({ db, env } = await writableRedis())
    await db.redis.set('shenma:environs:early:a', JSON.stringify('a'))
    await reconciled(db)
  })
  afterAll(() => db.release())

  it('serves a record written straight into Redis once the scheduled handler ran', async () => {
    await db.redis.set('shenma:environs:late:a', JSON.stringify('straight'))
    expect((await get(env, '/api/environs/late')).status).toBe(404)
    await runScheduled(env)
    expect(await get(env, '/api/environs/late')).toMatchObject({ status: 200, body: { data: { a: 'straight' } } })
  })

  it('serves a record written through the service at once, and forgets one deleted through it', async () => {
    expect(await write(env, 'PUT', '/api/environs/early.b', 'through')).toBe(200)
    expect((await get(env, '/api/environs/early')).body.data).toEqual({ a: 'a', b: 'through' })
    expect(await db.redis.zscore(INDEX_KEY, 'shenma:environs:early:b')).toBe(0)
    expect(await write(env, 'DELETE', '/api/environs/early.b')).toBe(200)
    expect(await db.redis.zscore(INDEX_KEY, 'shenma:environs:early:b')).toBeNull()
  })

  it('takes out of the index a key deleted straight from Redis, at the next pass', async () => {
    await db.redis.set('shenma:environs:brief:a', JSON.stringify('brief'))
    await runScheduled(env)
    expect(await db.redis.zscore(INDEX_KEY, 'shenma:environs:brief:a')).toBe(0)
    await db.redis.del('shenma:environs:brief:a')
    // Listed but gone: no variable, and not a corrupt one.
    expect((await get(env, '/api/environs/brief')).status).toBe(404)
    await runScheduled(env)
    expect(await db.redis.zscore(INDEX_KEY, 'shenma:environs:brief:a')).toBeNull()
  })
})
