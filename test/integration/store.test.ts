// How the service reaches Redis: what it costs in HTTP requests, and what it
// answers when Redis cannot be reached or is half configured.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { UpstashStore } from '../../lib/store'
import { ADMIN, call, fetchWorker, freshRedis, get, writableRedis } from '../support/harness'
import type { TestRedis } from '../support/harness'

describe('Redis requests', () => {
  const COUNT = 1000
  let db: TestRedis

  beforeAll(async () => {
    db = await freshRedis()
    const records: Record<string, unknown> = {}
    for (let i = 0; i < COUNT; i++)
      records[`shenma:environs:bulk:v${String(i).padStart(4, '0')}`] = { i, tags: ['a', 'b'] }
    // Unrelated keys that SCAN walks past, as in a shared Redis.
    for (let i = 0; i < 200; i++) records[`other:service:${i}`] = i
    await db.redis.mset(records)
  })
  afterAll(() => db.release())

  it(`lists ${COUNT} environs cold in at most 10 HTTP requests`, async () => {
    await db.resetRequests()
    const { status, body } = await get(db.env, `/api/environs?limit=${COUNT}`)
    expect(status).toBe(200)
    expect(body.data).toHaveLength(COUNT)
    const requests = await db.requests()
    console.log(`GET /api/environs with ${COUNT} environs: ${requests} Redis HTTP requests`)
    expect(requests).toBeLessThanOrEqual(10)
  })

  it(`reads the ${COUNT} values of a subtree cold in at most 10 HTTP requests`, async () => {
    await db.resetRequests()
    const { status, body } = await get(db.env, '/api/environs/bulk')
    expect(status).toBe(200)
    const tree = body.data as Record<string, { i: number }>
    expect(Object.keys(tree)).toHaveLength(COUNT)
    expect(tree.v0999).toEqual({ i: 999, tags: ['a', 'b'] })
    const requests = await db.requests()
    console.log(`GET /api/environs/bulk with ${COUNT} values: ${requests} Redis HTTP requests`)
    expect(requests).toBeLessThanOrEqual(10)
  })
})

describe('an unreachable or misconfigured Redis', () => {
  it('answers 503 STORE_UNAVAILABLE when nothing listens at the URL', async () => {
    const env = { UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1', UPSTASH_REDIS_REST_TOKEN: 't' }
    const { status, body } = await get(env, '/api/extensions')
    expect(status).toBe(503)
    expect(body).toMatchObject({ status: 'error', code: 'STORE_UNAVAILABLE' })
    expect(body.message).toMatch(/^Redis EVAL failed: /)
  })

  it('answers 503 STORE_UNAVAILABLE when Redis rejects the token, without echoing it', async () => {
    const db = await freshRedis()
    const env = { ...db.env, UPSTASH_REDIS_REST_TOKEN: 'wrong-token' }
    const { status, body } = await get(env, '/api/tools')
    await db.release()
    expect(status).toBe(503)
    expect(body).toEqual({ status: 'error', code: 'STORE_UNAVAILABLE', message: 'Redis EVAL failed: Unauthorized' })
  })

  it('answers 503 MISCONFIGURED naming the missing variable when only one is set', async () => {
    const { status, body } = await get({ UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1' }, '/api/environs')
    expect({ status, body }).toEqual({
      status: 503,
      body: {
        status: 'error',
        code: 'MISCONFIGURED',
        message:
          'UPSTASH_REDIS_REST_TOKEN is not set, though UPSTASH_REDIS_REST_URL is: set both, or neither for the embedded store',
        setting: 'UPSTASH_REDIS_REST_TOKEN',
      },
    })
    const url = await get({ UPSTASH_REDIS_REST_TOKEN: 't' }, '/api/environs')
    expect(url.body).toMatchObject({ code: 'MISCONFIGURED', setting: 'UPSTASH_REDIS_REST_URL' })
  })
})

describe('listing costs', () => {
  it('reads 300 tools and 300 extensions cold in at most 10 HTTP requests each', async () => {
    const db = await freshRedis()
    const records: Record<string, unknown> = {}
    const tool = { name: 't', module: 'm', type: 'restful', restful: { url: '/t' }, description: 'd', parameters: {} }
    for (let i = 0; i < 300; i++) {
      records[`shenma:tools:m:t${i}`] = tool
      records[`shenma:extensions:e${i}`] = { name: `e${i}`, version: '1', extensionType: 'prompt', contributes: {} }
    }
    await db.redis.mset(records)
    for (const path of ['/api/tools?limit=300', '/api/extensions?limit=300']) {
      await db.resetRequests()
      const { body } = await get(db.env, path)
      expect(body.data).toHaveLength(300)
      expect(await db.requests()).toBeLessThanOrEqual(10)
    }
    await db.release()
  })
})

describe('a Redis that never answers', () => {
  let db: TestRedis
  beforeEach(async () => {
    db = await freshRedis()
    await db.redis.set('shenma:templates:team:p', { prompt: 'hello' })
    await db.stall(true)
  })
  afterEach(async () => {
    await db.stall(false)
    await db.release()
  })

  const reads: [string, string][] = [
    // A listing's first request is its page of the record index (record-index.ts).
    ['/api/extensions', 'EVAL'],
    ['/api/prompts/team.p', 'MGET'],
  ]
  for (const [path, command] of reads) {
    it(`answers GET ${path} 503 STORE_UNAVAILABLE at REDIS_TIMEOUT_MS, naming ${command}, sent once`, async () => {
      await db.resetRequests()
      const { status, body } = await get({ ...db.env, REDIS_TIMEOUT_MS: '50' }, path)
      expect({ status, body }).toEqual({
        status: 503,
        body: { status: 'error', code: 'STORE_UNAVAILABLE', message: `Redis ${command} failed: timed out after 50 ms` },
      })
      expect(await db.requests()).toBe(1)
    })
  }

  it('fails a transaction, read or write, 503 STORE_UNAVAILABLE at its timeout, sent once', async () => {
    const url = db.env.UPSTASH_REDIS_REST_URL as string
    const store = new UpstashStore({ url, token: db.env.UPSTASH_REDIS_REST_TOKEN as string, timeoutMs: 50 })
    for (const writes of [false, true]) {
      await db.resetRequests()
      await expect(store.transaction([['GET', 'shenma:templates:team:p']], writes)).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: 'Redis MULTI/EXEC failed: timed out after 50 ms',
      })
      expect(await db.requests()).toBe(1)
    }
  })

  it('answers a render 503 STORE_UNAVAILABLE when REDIS_TIMEOUT_MS comes before its deadline', async () => {
    const env = { ...db.env, REDIS_TIMEOUT_MS: '50', RENDER_TIMEOUT_MS: '60000' }
    const { status, body } = await call(env, 'POST', '/api/prompts/team.p/render', {})
    expect({ status, code: body.code }).toEqual({ status: 503, code: 'STORE_UNAVAILABLE' })
  })

  it("answers a render 503 RENDER_TIMEOUT naming Redis when the render's deadline comes first", async () => {
    const env = { ...db.env, REDIS_TIMEOUT_MS: '1000', RENDER_TIMEOUT_MS: '100' }
    const { status, body } = await call(env, 'POST', '/api/prompts/team.p/render', {})
    expect({ status, body }).toEqual({
      status: 503,
      body: {
        status: 'error',
        code: 'RENDER_TIMEOUT',
        message: expect.stringMatching(
          /^rendering did not finish within 100 ms: \d+ ms reading the store \(\d+ reads? not cached\)$/,
        ),
        phase: 'store',
      },
    })
  })
})

describe('an answer lost on its way back', () => {
  const put = (env: Env, path: string, record: unknown) =>
    fetchWorker(env, path, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(record),
    })

  it('makes a write 503 STORE_UNAVAILABLE, sent once though it landed, its message without the record', async () => {
    const { db, env } = await writableRedis()
    await db.loseNext('EVAL')
    await db.resetRequests()
    const res = await put(env, '/api/prompts/lost.p', { prompt: 'the landed text' })
    const body = (await res.json()) as Record<string, unknown>
    expect({ status: res.status, code: body.code }).toEqual({ status: 503, code: 'STORE_UNAVAILABLE' })
    expect(body.message).toMatch(/^Redis MULTI\/EXEC failed: /)
    expect(body.message).not.toContain('landed')
    expect((await db.commands()).filter(([name]) => name === 'EVAL')).toHaveLength(1)
    expect(await db.redis.get('shenma:templates:lost:p')).toEqual({ prompt: 'the landed text' })
    await db.release()
  })

  it('sends a read again, and answers it', async () => {
    const db = await freshRedis()
    await db.redis.set('shenma:extensions:e', { name: 'e', version: '1', extensionType: 'prompt', contributes: {} })
    await db.loseNext('SCAN')
    await db.resetRequests()
    const { status, body } = await get(db.env, '/api/extensions')
    expect({ status, count: (body.data as unknown[]).length }).toEqual({ status: 200, count: 1 })
    expect((await db.commands()).filter(([name]) => name === 'SCAN')).toHaveLength(2)
    await db.release()
  })
})

describe('a write Redis refuses', () => {
  it('answers 503 STORE_UNAVAILABLE naming the command, never quoting the record or the token', async () => {
    const { db, env } = await writableRedis()
    await db.failNext('EVAL')
    const res = await fetchWorker(env, '/api/prompts/refused.p', {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'the refused text' }),
    })
    const body = (await res.json()) as Record<string, unknown>
    await db.release()
    expect({ status: res.status, code: body.code }).toEqual({ status: 503, code: 'STORE_UNAVAILABLE' })
    expect(body.message).toMatch(/^Redis MULTI\/EXEC failed: EXECABORT/)
    expect(body.message).not.toContain('refused text')
    expect(body.message).not.toContain(db.env.UPSTASH_REDIS_REST_TOKEN)
  })
})

describe('a misconfigured Redis', () => {
  it('answers 503 MISCONFIGURED naming a bad REDIS_TIMEOUT_MS or URL, not 500 or STORE_UNAVAILABLE', async () => {
    const base = { UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1', UPSTASH_REDIS_REST_TOKEN: 't' }
    const timeout = await get({ ...base, REDIS_TIMEOUT_MS: '2s' }, '/api/tools')
    expect({ status: timeout.status, body: timeout.body }).toEqual({
      status: 503,
      body: {
        status: 'error',
        code: 'MISCONFIGURED',
        message: "REDIS_TIMEOUT_MS must be a positive integer, got '2s'",
        setting: 'REDIS_TIMEOUT_MS',
      },
    })
    const url = await get({ ...base, UPSTASH_REDIS_REST_URL: 'redis.example.com' }, '/api/tools')
    expect({ status: url.status, body: url.body }).toEqual({
      status: 503,
      body: {
        status: 'error',
        code: 'MISCONFIGURED',
        message: 'UPSTASH_REDIS_REST_URL is not a URL the Redis client accepts (http:// or https://)',
        setting: 'UPSTASH_REDIS_REST_URL',
      },
    })
  })

  it('does not stand in the way of 404 and 405 answers', async () => {
    const half = { UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1' }
    expect((await get(half, '/api/nothing')).status).toBe(404)
    expect((await call(half, 'DELETE', '/api/tools')).status).toBe(405)
  })
})
