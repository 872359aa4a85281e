// Paged listings against the real Redis behind the Upstash bridge:
// GET /api/{extensions,prompts,environs,tools}?limit=&cursor=, walked page
// by page (records written through the API between pages), refused limits
// and cursors, and what a page costs in Redis commands as the database grows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { ADMIN, fetchWorker, get } from '../support/harness'
import { writableRedis } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { promptExtension, restTool } from '../support/records'

let db: TestRedis
let env: Env

const tool = (name: string) => restTool('m', name, '/t', { parameters: {} })

beforeAll(async () => {
  ;({ db, env } = await writableRedis())
  await db.redis.mset({
    'shenma:extensions:a': promptExtension('a', ['b.c', 'x', 'y']),
    'shenma:extensions:a:b': promptExtension('a.b', ['c', 'd', 'e']),
    'shenma:extensions:many': promptExtension('many', ['p1', 'p2', 'p3', 'p4', 'p5']),
    'shenma:extensions:broken': { name: 'broken' },
    'shenma:templates:a:x': { prompt: 'direct a.x', supports: ['chat'] },
    'shenma:templates:m:one': { prompt: 'one', supports: ['chat'] },
    'shenma:templates:m:two': { prompt: 'two' },
    'shenma:tools:a:b_c': tool('abc'),
    'shenma:tools:a_b:c': tool('abc2'),
    'shenma:tools:m:t1': tool('t1'),
    'shenma:tools:m:t2': tool('t2'),
    'shenma:environs:v:k1': 1,
    'shenma:environs:v:k2': 2,
    'shenma:environs:v:k3': 3,
    'shenma:environs:w': 'w',
  })
})
afterAll(() => db.release())

type Body = { data: unknown[]; skipped?: unknown[]; next_cursor: string | null }

async function page(path: string, limit: number, cursor: string | null): Promise<Body> {
  const sep = path.includes('?') ? '&' : '?'
  const query = `${sep}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`
  const { status, body } = await get(env, `${path}${query}`)
  expect(status, JSON.stringify(body)).toBe(200)
  return body as unknown as Body
}

/** Every page of `path` by `limit`; `between(n)` runs after the n-th page. */
async function walk(path: string, limit: number, between: (n: number) => Promise<void> = async () => {}) {
  const data: unknown[] = []
  const skipped: unknown[] = []
  let cursor: string | null = null
  for (let n = 1; n <= 100; n++) {
    const body = await page(path, limit, cursor)
    expect(body.data.length).toBeLessThanOrEqual(limit)
    data.push(...body.data)
    skipped.push(...(body.skipped ?? []))
    if (body.next_cursor === null) return { data, skipped, pages: n }
    expect(typeof body.next_cursor).toBe('string')
    cursor = body.next_cursor
    await between(n)
  }
  throw new Error(`${path} did not end`)
}

const ids = (data: unknown[]) => data.map((item) => (typeof item === 'string' ? item : (item as { id: string }).id))
const sorted = (skips: unknown[]) => skips.map((s) => JSON.stringify(s)).sort()

describe('a walk of the cursor', () => {
  for (const path of ['/api/extensions', '/api/prompts', '/api/environs', '/api/tools', '/api/prompts?supports=chat']) {
    for (const limit of [1, 2, 3]) {
      it(`of ${path} by ${limit} lists the whole listing once, and each skip once`, async () => {
        const whole = await page(path, 1000, null)
        expect(whole.next_cursor).toBeNull()
        const walked = await walk(path, limit)
        expect(ids(walked.data)).toEqual(ids(whole.data))
        expect(sorted(walked.skipped)).toEqual(sorted(whole.skipped ?? []))
      })
    }
  }

  it('of the prompts keeps the override rules across pages: a direct prompt, then the shorter extension id', async () => {
    const walked = await walk('/api/prompts', 1)
    expect(walked.data.map((p) => `${(p as { id: string }).id} ${(p as { origin: string }).origin}`)).toEqual([
      'a.b.c extension',
      'a.y extension',
      'a.b.d extension',
      'a.b.e extension',
      ...['p1', 'p2', 'p3', 'p4', 'p5'].map((p) => `many.${p} extension`),
      'a.x direct',
      'm.one direct',
      'm.two direct',
    ])
    expect(walked.skipped).toContainEqual({
      key: 'shenma:extensions:a:b',
      reason: "contributes prompt id 'a.b.c', already taken by shenma:extensions:a",
    })
    expect(ids((await walk('/api/prompts?extension=a.b', 1)).data)).toEqual(['a.b.c', 'a.b.d', 'a.b.e'])
  })

  it('of the tools keeps a name with its first key across pages', async () => {
    const walked = await walk('/api/tools', 1)
    expect(walked.data.map((t) => (t as { id: string }).id)).toEqual(['a_b_c', 'm_t1', 'm_t2'])
    expect(walked.skipped).toEqual([
      { key: 'shenma:tools:a_b:c', reason: "its function name 'a_b_c' is already taken by shenma:tools:a:b_c" },
    ])
  })

  it('meets a record PUT ahead of it once, and not one PUT behind it', async () => {
    const put = async (path: string, body: unknown) => {
      const res = await fetchWorker(env, path, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(res.status, await res.clone().text()).toBe(200)
    }
    const before = ids((await page('/api/prompts', 1000, null)).data)
    const walked = await walk('/api/prompts', 2, async (n) => {
      if (n !== 3) return
      // Past page 3 the walk is inside extension `many`: extension `0` is behind it; extension `zz` and every direct prompt ahead.
      await put('/api/extensions/0', promptExtension('0', ['behind']))
      await put('/api/prompts/a.b.zz', { prompt: 'ahead' })
      await put('/api/extensions/zz', promptExtension('zz', ['ahead']))
      await put('/api/prompts/m.zz', { prompt: 'ahead' })
    })
    const listed = ids(walked.data)
    expect(new Set(listed).size).toBe(listed.length)
    expect(listed).toEqual([...before.slice(0, 9), 'zz.ahead', 'a.b.zz', ...before.slice(9), 'm.zz'])
    expect(listed).not.toContain('0.behind')
    // A fresh walk sees them all.
    expect(ids((await walk('/api/prompts', 3)).data)).toContain('0.behind')
  })
})

describe('a refused page', () => {
  const refusals: [string, RegExp][] = [
    ['?limit=0', /limit: must be an integer from 1 to 1000/],
    ['?limit=1001', /limit: must be an integer from 1 to 1000/],
    ['?limit=abc', /limit: must be an integer from 1 to 1000/],
    ['?limit=-1', /limit: must be an integer from 1 to 1000/],
    ['?cursor=not%20ours!', /cursor: is not one this listing gave/],
    [`?cursor=${Buffer.from('["other:key"]').toString('base64url')}`, /the cursor is not one this listing gave/],
    [`?cursor=${Buffer.from('garbage').toString('base64url')}`, /the cursor is not one this listing gave/],
  ]
  for (const path of ['/api/extensions', '/api/prompts', '/api/environs', '/api/tools']) {
    it(`of ${path} is 400 BAD_REQUEST naming what is wrong`, async () => {
      for (const [query, message] of refusals) {
        const { status, body } = await get(env, `${path}${query}`)
        expect(status, query).toBe(400)
        expect(body, query).toMatchObject({
          status: 'error',
          code: 'BAD_REQUEST',
          message: expect.stringMatching(message),
        })
      }
    })
  }

  it('takes no cursor of another listing', async () => {
    const tools = await page('/api/tools', 1, null)
    const { status } = await get(env, `/api/prompts?cursor=${tools.next_cursor}`)
    expect(status).toBe(400)
  })
})

describe('what a page costs', () => {
  /** The commands a walk by `limit` sends for each page, without SCAN (the record index's fallback until it lands). */
  async function commandsPerPage(target: TestRedis, targetEnv: Env, path: string, limit: number): Promise<string[][]> {
    const perPage: string[][] = []
    let cursor: string | null = null
    do {
      await target.resetRequests()
      const sep = path.includes('?') ? '&' : '?'
      const { body } = await get(targetEnv, `${path}${sep}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`)
      perPage.push((await target.commands()).map(([name]) => name as string).filter((name) => name !== 'SCAN'))
      cursor = (body as unknown as Body).next_cursor
    } while (cursor !== null)
    return perPage
  }

  it('is the same commands in a database with thousands of other keys', async () => {
    const big = await writableRedis()
    const records = (await db.redis.keys('shenma:*')).filter((key) =>
      /^shenma:(extensions|templates|tools|environs):/.test(key),
    )
    const values = await db.redis.mget<unknown[]>(...records)
    const copy: Record<string, unknown> = {}
    records.forEach((key, i) => (copy[key] = values[i]))
    const filler: Record<string, unknown> = {}
    for (let i = 0; i < 3000; i++) {
      filler[`other:app:${i}`] = i
      filler[`shenma:environs:chat:history:${i}`] = 'x'
    }
    await big.db.redis.mset({ ...copy, ...filler })
    for (const path of ['/api/prompts', '/api/extensions', '/api/tools']) {
      const small = await commandsPerPage(db, env, path, 2)
      const large = await commandsPerPage(big.db, big.env, path, 2)
      expect(large, path).toEqual(small)
      // A page reads at most four times: keys, values, and for prompts the direct keys and one batch of checks.
      for (const commands of small) expect(commands.length, path).toBeLessThanOrEqual(4)
    }
    await big.db.release()
  })
})
