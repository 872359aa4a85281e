// Issue 27, row 3: every answer has a byte budget. One /mcp POST answers at
// most MCP_MAX_BYTES (requests past it are refused, and not run), an environ
// read loads at most ENVIRON_MAX_BYTES (REST and MCP alike, refused with
// LIMIT_EXCEEDED before the subtree is read whole), and tools/call gives a
// tool's answer once. The budgets are set small, so the data stays small.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { call, fetchWorker, freshRedis, logged, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { restTool } from '../support/records'

const tools = toolServer()
let db: TestRedis
let env: Env

/** A subtree of KEYS variables of VALUE_CHARS characters each. */
const KEYS = 200
const VALUE_CHARS = 1000
const keyOf = (i: number) => `shenma:environs:big:k${String(i).padStart(3, '0')}`
/** Characters of a /big tool answer. */
const TOOL_ANSWER = 20_000

beforeAll(async () => {
  db = await freshRedis()
  env = { ...db.env, RENDER_TIMEOUT_MS: '5000', TOOL_TIMEOUT_MS: '2000' }
  const records: Record<string, unknown> = {
    'shenma:tools:budget:big': restTool('budget', 'big', `${tools.url}/big/${TOOL_ANSWER}/tools/b?group=budget-big`),
    'shenma:tools:budget:echo': restTool('budget', 'echo', `${tools.url}/tools/echo?group=budget-echo`),
  }
  for (let i = 0; i < KEYS; i++) records[keyOf(i)] = 'x'.repeat(VALUE_CHARS)
  await db.redis.mset(records)
})
afterAll(() => db.release())

/** One POST to /mcp; its answer's text, and how many UTF-8 bytes it is. */
async function post(body: unknown, over: Env = {}) {
  const res = await fetchWorker({ ...env, ...over }, '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, text, bytes: new TextEncoder().encode(text).length }
}

const request = (id: number, method: string, params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
})
const callBig = (id: number) => request(id, 'tools/call', { name: 'budget_big', arguments: { x: String(id) } })

interface Answer {
  id: number
  result?: { content: { text: string }[] }
  error?: { code: number; message: string; data?: Record<string, unknown> }
}

describe('one /mcp answer', () => {
  it('answers a batch at most MCP_MAX_BYTES: answers in order while they fit, then each request refused, not run', async () => {
    await tools.reset('budget-big')
    const budget = 2.5 * TOOL_ANSWER
    const batch = Array.from({ length: 8 }, (_, i) => callBig(i + 1))
    const { result: answer, lines } = await logged(() => post(batch, { MCP_MAX_BYTES: String(budget) }))
    expect(answer.status).toBe(200)
    expect(answer.bytes).toBeLessThanOrEqual(budget)
    const answers = JSON.parse(answer.text) as Answer[]
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    // Two answers fit; the third ran and did not fit; the five after it were never run.
    for (const given of answers.slice(0, 2)) expect(given.result?.content[0]?.text).toHaveLength(TOOL_ANSWER)
    for (const refused of answers.slice(2)) {
      expect(refused.error).toMatchObject({ code: -32602, data: { code: 'LIMIT_EXCEEDED', limit: 'MCP_MAX_BYTES' } })
      expect(refused.error?.message).toContain(`MCP_MAX_BYTES (${budget} bytes)`)
    }
    expect((await tools.stats('budget-big')).calls).toBe(3)
    // The log line says which requests were refused.
    const line = lines.find((l) => l.msg === 'request')
    expect(line?.mcp).toEqual([
      ...Array.from({ length: 2 }, () => ({ method: 'tools/call' })),
      ...Array.from({ length: 6 }, () => ({ method: 'tools/call', error: 'LIMIT_EXCEEDED' })),
    ])
  })

  it('keeps room to refuse every request after the answers it gives', async () => {
    // 32 reads of a variable each: answers of about 1,100 bytes, refusals of about 200.
    const batch = Array.from({ length: 32 }, (_, i) =>
      request(i, 'resources/read', { uri: `environ://big/k${String(i).padStart(3, '0')}` }),
    )
    const budget = 16 * VALUE_CHARS
    const answer = await post(batch, { MCP_MAX_BYTES: String(budget) })
    expect(answer.bytes).toBeLessThanOrEqual(budget)
    const answers = JSON.parse(answer.text) as Answer[]
    expect(answers.map((a) => a.id)).toEqual(batch.map((r) => r.id))
    const given = answers.filter((a) => a.result !== undefined).length
    expect(given).toBeGreaterThan(4)
    expect(given).toBeLessThan(16)
    // In order: the answers given come first, every refusal after them.
    expect(answers.slice(given).every((a) => a.error?.data?.code === 'LIMIT_EXCEEDED')).toBe(true)
  })

  it('refuses a single request whose answer alone passes the budget, as an error and not a failure', async () => {
    const answer = await post(callBig(1), { MCP_MAX_BYTES: String(TOOL_ANSWER) })
    expect(answer.status).toBe(200)
    expect(answer.bytes).toBeLessThanOrEqual(TOOL_ANSWER)
    expect(JSON.parse(answer.text)).toMatchObject({ id: 1, error: { data: { code: 'LIMIT_EXCEEDED' } } })
  })

  it('refuses a malformed MCP_MAX_BYTES as the misconfiguration it is', async () => {
    const answer = await post(request(1, 'ping', {}), { MCP_MAX_BYTES: 'lots' })
    expect(answer.status).toBe(503)
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'MISCONFIGURED', setting: 'MCP_MAX_BYTES' })
  })
})

describe('an environ read', () => {
  const limit = { ENVIRON_MAX_BYTES: String(10 * VALUE_CHARS) }

  it('GET /api/environs/{prefix} past ENVIRON_MAX_BYTES is 422 LIMIT_EXCEEDED, the subtree never read whole', async () => {
    await db.resetRequests()
    const { status, body } = await call({ ...env, ...limit }, 'GET', '/api/environs/big')
    expect(status).toBe(422)
    expect(body).toMatchObject({ status: 'error', code: 'LIMIT_EXCEEDED', limit: 'ENVIRON_MAX_BYTES' })
    expect(body.message).toContain(`environ 'big' holds more than ${10 * VALUE_CHARS} bytes`)
    // Their sizes were learned first: no value below it was read (see hardening-environ-size.test.ts).
    const read = (await db.commands()).filter(
      ([name, ...keys]) => name === 'MGET' && keys.some((k) => k.startsWith('shenma:environs:big:')),
    )
    expect(read).toEqual([])
  })

  it('answers a path within the budget, and the whole subtree under a larger one', async () => {
    const one = await call({ ...env, ...limit }, 'GET', '/api/environs/big.k007')
    expect(one).toMatchObject({ status: 200, body: { data: 'x'.repeat(VALUE_CHARS) } })
    const all = await call({ ...env, ENVIRON_MAX_BYTES: String(KEYS * 2 * VALUE_CHARS) }, 'GET', '/api/environs/big')
    expect(all.status).toBe(200)
    expect(Object.keys(all.body.data as object)).toHaveLength(KEYS)
  })

  it('resources/read past ENVIRON_MAX_BYTES is an InvalidParams error naming the limit', async () => {
    const answer = await post(request(1, 'resources/read', { uri: 'environ://big' }), limit)
    expect(JSON.parse(answer.text)).toMatchObject({
      id: 1,
      error: { code: -32602, data: { code: 'LIMIT_EXCEEDED', limit: 'ENVIRON_MAX_BYTES' } },
    })
    const within = await post(request(2, 'resources/read', { uri: 'environ://big/k007' }), limit)
    expect(JSON.parse(JSON.parse(within.text).result.contents[0].text)).toBe('x'.repeat(VALUE_CHARS))
  })

  it("row 3's batch: 32 reads of a subtree past the limit answer 32 small errors", async () => {
    const batch = Array.from({ length: 32 }, (_, i) => request(i, 'resources/read', { uri: 'environ://big' }))
    const answer = await post(batch, limit)
    const answers = JSON.parse(answer.text) as Answer[]
    expect(answers.every((a) => a.error?.data?.limit === 'ENVIRON_MAX_BYTES')).toBe(true)
    expect(answer.bytes).toBeLessThan(32 * 400)
  })
})

describe('tools/call', () => {
  it('gives a JSON object answer once, as text, when the tool lists no outputSchema', async () => {
    const answer = await post(request(1, 'tools/call', { name: 'budget_echo', arguments: { x: 'y' } }))
    const { result } = JSON.parse(answer.text) as { result: Record<string, unknown> }
    expect(result).not.toHaveProperty('structuredContent')
    const [content] = result.content as { text: string }[]
    expect(JSON.parse(content?.text as string)).toMatchObject({ path: '/tools/echo', query: { x: 'y' } })
  })
})
