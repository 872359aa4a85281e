// How the service reaches Redis: what it costs in HTTP requests, and what it
// answers when Redis cannot be reached or is half configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshRedis, get } from '../support/harness'
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
    const { status, body } = await get(db.env, '/api/environs')
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
    expect(body.message).toMatch(/^Redis SCAN failed: /)
  })

  it('answers 503 STORE_UNAVAILABLE when Redis rejects the token, without echoing it', async () => {
    const db = await freshRedis()
    const env = { ...db.env, UPSTASH_REDIS_REST_TOKEN: 'wrong-token' }
    const { status, body } = await get(env, '/api/tools')
    await db.release()
    expect(status).toBe(503)
    expect(body).toEqual({ status: 'error', code: 'STORE_UNAVAILABLE', message: 'Redis SCAN failed: Unauthorized' })
  })

  it('answers 503 STORE_UNAVAILABLE naming the missing variable when only one is set', async () => {
    const { status, body } = await get({ UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1' }, '/api/environs')
    expect(status).toBe(503)
    expect(body.message).toBe('Redis is half configured: UPSTASH_REDIS_REST_TOKEN is not set')
  })
})
