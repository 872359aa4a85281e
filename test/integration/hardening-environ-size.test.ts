// Issue 27, row 3, followed up again: an environ subtree read past
// ENVIRON_MAX_BYTES is refused without its values crossing from Redis (the
// store learns their sizes first, in the same request that reads them when
// they fit), a subtree within it costs no more requests than before, and a
// label's overlay reads as it did. The bytes Redis answered are counted at
// the Worker's fetch, as they arrive.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Env } from '../../lib/env'
import { TOMBSTONE, UpstashStore } from '../../lib/store'
import { call, fetchWorker, freshRedis, renderStored } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { reconciled } from '../support/reconciled'

let db: TestRedis
let env: Env

/** A subtree of KEYS values of VALUE_CHARS characters: a MiB, sixteen times the budget. */
const KEYS = 64
const VALUE_CHARS = 16 * 1024
const BUDGET = 64 * 1024
const limit = { ENVIRON_MAX_BYTES: String(BUDGET) }
const roomy = { ENVIRON_MAX_BYTES: String(4 * KEYS * VALUE_CHARS) }
const keyOf = (i: number) => `shenma:environs:big:k${String(i).padStart(2, '0')}`

beforeAll(async () => {
  db = await freshRedis()
  env = { ...db.env, RENDER_TIMEOUT_MS: '5000' }
  const records: Record<string, string> = {}
  for (let i = 0; i < KEYS; i++) records[keyOf(i)] = JSON.stringify(String(i % 10).repeat(VALUE_CHARS))
  // A label hiding the big values with small ones, deleting one and adding one: within the budget as it sees them.
  for (let i = 1; i < 8; i++) records[`shenma:labels:slim:environs:mix:k${i}`] = JSON.stringify(`slim ${i}`)
  for (let i = 0; i < 8; i++) records[`shenma:environs:mix:k${i}`] = JSON.stringify('m'.repeat(VALUE_CHARS))
  records['shenma:labels:slim:environs:mix:k0'] = TOMBSTONE
  records['shenma:labels:slim:environs:mix:k9'] = JSON.stringify('own')
  // A label adding one value past the budget to a subtree within it.
  records['shenma:environs:small:a'] = JSON.stringify('a')
  records['shenma:labels:fat:environs:small:b'] = JSON.stringify('b'.repeat(2 * BUDGET))
  await db.redis.mset(records)
  // Written straight into Redis: listed in the record index once the scheduled handler ran.
  await reconciled(db)
})
afterAll(() => db.release())

/** What `run` made the Worker fetch from Redis: its requests, and the bytes of their answers. */
async function fromRedis<T>(run: () => Promise<T>): Promise<{ result: T; requests: number; bytes: number }> {
  const real = globalThis.fetch
  let requests = 0
  let bytes = 0
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
    const res = await real(input, init)
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.origin !== new URL(db.env.UPSTASH_REDIS_REST_URL as string).origin) return res
    const body = await res.arrayBuffer()
    requests++
    bytes += body.byteLength
    return new Response(body, res)
  })
  try {
    return { result: await run(), requests, bytes }
  } finally {
    spy.mockRestore()
  }
}

/** The names of the commands Redis received since the last reset, sorted. */
async function commandNames(): Promise<string[]> {
  return (await db.commands()).map(([name]) => name as string).sort()
}

const mcp = (body: unknown, over: Env) =>
  fetchWorker({ ...env, ...over }, '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  })

describe('an environ subtree read past ENVIRON_MAX_BYTES', () => {
  it('GET /api/environs/{prefix} is 422, and Redis answers sizes, no value', async () => {
    await db.resetRequests()
    const { result, requests, bytes } = await fromRedis(() => call({ ...env, ...limit }, 'GET', '/api/environs/big'))
    expect(result.status).toBe(422)
    expect(result.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'ENVIRON_MAX_BYTES' })
    expect(result.body.message).toContain(`environ 'big' holds more than ${BUDGET} bytes`)
    // One tree read (record-index.ts): the key, the names below it from the index, and their sizes, in one EVAL;
    // less than one value's bytes in all.
    expect(requests).toBe(1)
    expect(await commandNames()).toEqual(['EVAL'])
    expect(bytes).toBeLessThan(VALUE_CHARS / 2)
  })

  it('fails a render reading it with 422 naming the variable, and Redis answers no value', async () => {
    await db.redis.set('shenma:templates:size:whole', { prompt: '{{len .big}}' })
    const { result, bytes } = await fromRedis(() =>
      call({ ...env, ...limit }, 'POST', '/api/prompts/size.whole/render', {}),
    )
    expect(result.status).toBe(422)
    expect(result.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'ENVIRON_MAX_BYTES', variable: 'big' })
    expect(bytes).toBeLessThan(VALUE_CHARS / 2)
  })

  it("row 3's MCP batch: 32 resources/read answer 32 errors from one measuring of the subtree", async () => {
    await db.resetRequests()
    const batch = Array.from({ length: 32 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i,
      method: 'resources/read',
      params: { uri: 'environ://big' },
    }))
    // A budget of its own: the render above measured the subtree under `limit`, and that answer is fresh still.
    const { result, bytes } = await fromRedis(async () =>
      (await mcp(batch, { ENVIRON_MAX_BYTES: String(BUDGET + 1) })).json(),
    )
    const answers = result as { error?: { data?: Record<string, unknown> } }[]
    expect(answers).toHaveLength(32)
    expect(answers.every((a) => a.error?.data?.limit === 'ENVIRON_MAX_BYTES')).toBe(true)
    // The render path's cache shares the one answer (sizes) among the 32 reads.
    expect((await commandNames()).filter((name) => name === 'EVAL')).toEqual(['EVAL'])
    expect(bytes).toBeLessThan(VALUE_CHARS / 2)
  })
})

describe('an environ subtree within ENVIRON_MAX_BYTES', () => {
  it('is read in one request with its key and listing, as it is stored', async () => {
    await db.resetRequests()
    const { result, requests } = await fromRedis(() => call({ ...env, ...roomy }, 'GET', '/api/environs/big'))
    expect(result.status).toBe(200)
    const data = result.body.data as Record<string, string>
    expect(Object.keys(data)).toHaveLength(KEYS)
    expect(data.k07).toBe('7'.repeat(VALUE_CHARS))
    // The key, the names below it and their values: one EVAL.
    expect(requests).toBe(1)
    expect(await commandNames()).toEqual(['EVAL'])
  })

  it('renders, and a render again within 5 s reads nothing from Redis', async () => {
    const first = await renderStored(db, 'size.within', '{{len .big}} {{len .big.k03}}', { ...env, ...roomy })
    expect(first).toMatchObject({ status: 200, body: { rendered_prompt: `${KEYS} ${VALUE_CHARS}` } })
    const again = await fromRedis(() => call({ ...env, ...roomy }, 'POST', '/api/prompts/size.within/render', {}))
    expect(again.result).toMatchObject({ status: 200, body: { rendered_prompt: `${KEYS} ${VALUE_CHARS}` } })
    expect(again.requests).toBe(0)
  })
})

describe("a label's overlay", () => {
  it('is measured as the label sees it: values it hides do not count, and are not read', async () => {
    expect((await call({ ...env, ...limit }, 'GET', '/api/environs/mix')).status).toBe(422)
    const { result, bytes } = await fromRedis(() => call({ ...env, ...limit }, 'GET', '/api/environs/mix?label=slim'))
    expect(result).toMatchObject({ status: 200 })
    expect(result.body.data).toEqual({
      ...Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`k${i + 1}`, `slim ${i + 1}`])),
      k9: 'own',
    })
    expect(bytes).toBeLessThan(VALUE_CHARS / 2)
  })

  it('renders as the label sees it, and refuses a value the label adds past the budget', async () => {
    const slim = await renderStored(db, 'size.mix', '{{len .mix}} {{.mix.k1}}', {
      ...env,
      ...limit,
      PROMPT_LABEL: 'slim',
    })
    expect(slim).toMatchObject({ status: 200, body: { rendered_prompt: '8 slim 1' } })
    expect(await call({ ...env, ...limit }, 'GET', '/api/environs/small')).toMatchObject({
      status: 200,
      body: { data: { a: 'a' } },
    })
    const fat = await call({ ...env, ...limit }, 'GET', '/api/environs/small?label=fat')
    expect(fat).toMatchObject({ status: 422, body: { code: 'LIMIT_EXCEEDED', limit: 'ENVIRON_MAX_BYTES' } })
  })
})

describe('the Upstash store read within a budget', () => {
  const store = () =>
    new UpstashStore({
      url: db.env.UPSTASH_REDIS_REST_URL as string,
      token: db.env.UPSTASH_REDIS_REST_TOKEN as string,
      timeoutMs: 5000,
    })

  it('answers what MGET does within it, and each size in UTF-8 bytes past it (none where no string is)', async () => {
    await db.redis.set('within:empty', '')
    await db.redis.set('within:utf8', 'é€😀')
    await db.redis.hset('within:hash', { a: 'b'.repeat(1000) })
    const keys = ['within:missing', 'within:hash', 'within:empty', 'within:utf8']
    const values = await store().values(keys)
    expect(await store().valuesWithin(keys, 9)).toEqual({ within: true, values })
    expect(await store().valuesWithin(keys, 8)).toEqual({ within: false, sizes: [-1, -1, 0, 9] })
  })

  it('reads more keys than one MGET of the script takes', async () => {
    const many = Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`within:many:${i}`, String(i)]))
    await db.redis.mset(many)
    const keys = [...Object.keys(many), 'within:many:none']
    const answer = await store().valuesWithin(keys, 10_000)
    expect(answer).toEqual({ within: true, values: [...Object.values(many), null] })
  })
})
