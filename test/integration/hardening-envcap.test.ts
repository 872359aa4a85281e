// Issue 27, row 3, followed up: the shared variables a render reads are
// loaded within ENVIRON_MAX_BYTES, as an environ read is (a subtree past it
// fails the render with 422 LIMIT_EXCEEDED before it is read whole), and an
// MCP tools/call reads a tool's answer no further than the room left in the
// batch's answer (MCP_MAX_BYTES). The budgets are set small, so the data stays small.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { fetchWorker, freshRedis, renderStored, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { restTool } from '../support/records'

const tools = toolServer()
let db: TestRedis
let env: Env

/** A subtree of KEYS variables of VALUE_CHARS characters each. */
const KEYS = 200
const VALUE_CHARS = 1000
const keyOf = (i: number) => `shenma:environs:cap:k${String(i).padStart(3, '0')}`
const limit = { ENVIRON_MAX_BYTES: String(10 * VALUE_CHARS) }
/**
 * A tool answer may be TOOL_MAX_BYTES; the /big tool answers twice that, without a Content-Length. Large,
 * so that what the sockets between it and the Worker buffer (some MB on loopback) is small beside it.
 */
const TOOL_MAX_BYTES = 32 * 1024 * 1024
const TOOL_ANSWER = 2 * TOOL_MAX_BYTES
/** An MCP answer's budget: far less room than a tool answer may take. */
const MCP_BUDGET = 20_000

beforeAll(async () => {
  db = await freshRedis()
  env = { ...db.env, RENDER_TIMEOUT_MS: '5000', TOOL_TIMEOUT_MS: '2000' }
  const records: Record<string, unknown> = {
    'shenma:tools:envcap:big': restTool(
      'envcap',
      'big',
      `${tools.url}/big/${TOOL_ANSWER}/chunked/tools/b?group=envcap-big`,
    ),
  }
  for (let i = 0; i < KEYS; i++) records[keyOf(i)] = 'x'.repeat(VALUE_CHARS)
  await db.redis.mset(records)
})
afterAll(() => db.release())

/** The keys of the subtree whose values reached Redis (MGET), each counted once. */
async function keysRead(): Promise<number> {
  const read = new Set<string>()
  for (const [command, ...args] of await db.commands()) {
    if (command?.toUpperCase() === 'MGET')
      for (const key of args) if (key.startsWith('shenma:environs:cap:')) read.add(key)
  }
  return read.size
}

describe('a render reading a subtree', () => {
  it('past ENVIRON_MAX_BYTES is 422 LIMIT_EXCEEDED naming the limit and the path, the subtree never read whole', async () => {
    await db.resetRequests()
    const { status, body } = await renderStored(db, 'envcap.whole', '{{len .cap}}', { ...env, ...limit })
    expect(status).toBe(422)
    expect(body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'ENVIRON_MAX_BYTES', variable: 'cap' })
    expect(body.message).toContain(`more than ${10 * VALUE_CHARS} bytes (ENVIRON_MAX_BYTES)`)
    expect(body.message).toContain('.cap')
    // Their sizes were learned first: none of its values was read (see hardening-environ-size.test.ts).
    expect(await keysRead()).toBe(0)
  })

  it('renders as before within the limit: a path of it under the small one, the whole subtree under a larger one', async () => {
    const one = await renderStored(db, 'envcap.one', '{{len .cap.k007}}', { ...env, ...limit })
    expect(one).toMatchObject({ status: 200, body: { rendered_prompt: String(VALUE_CHARS) } })
    const roomy = { ...env, ENVIRON_MAX_BYTES: String(KEYS * 2 * VALUE_CHARS) }
    const whole = await renderStored(db, 'envcap.whole', '{{len .cap}}', roomy)
    expect(whole).toMatchObject({ status: 200, body: { rendered_prompt: String(KEYS) } })
  })

  it('counts every path a template reads against one budget', async () => {
    // Six variables of 1,000 characters each, one by one, pass a budget of ten thousand bytes only together.
    const paths = Array.from({ length: 12 }, (_, i) => `{{len .cap.k${String(i).padStart(3, '0')}}}`).join(',')
    const { status, body } = await renderStored(db, 'envcap.many', paths, { ...env, ...limit })
    expect(status).toBe(422)
    expect(body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'ENVIRON_MAX_BYTES' })
  })

  it('fails MCP prompts/get past the limit as InvalidParams naming it', async () => {
    await db.redis.set('shenma:templates:envcap:mcp', { prompt: '{{len .cap}}' })
    const res = await fetchWorker({ ...env, ...limit }, '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'envcap.mcp' } }),
    })
    expect(await res.json()).toMatchObject({
      id: 1,
      error: { code: -32602, data: { code: 'LIMIT_EXCEEDED', limit: 'ENVIRON_MAX_BYTES', variable: 'cap' } },
    })
  })
})

describe('an MCP tools/call batch', () => {
  it('reads no call past the room left in MCP_MAX_BYTES, and runs none after the first that cannot fit', async () => {
    await tools.reset('envcap-big')
    const batch = Array.from({ length: 8 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'tools/call',
      params: { name: 'envcap_big', arguments: {} },
    }))
    const res = await fetchWorker(
      { ...env, TOOL_MAX_BYTES: String(TOOL_MAX_BYTES), MCP_MAX_BYTES: String(MCP_BUDGET) },
      '/mcp',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(batch),
      },
    )
    const text = await res.text()
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(MCP_BUDGET)
    const answers = JSON.parse(text) as { id: number; error?: { data?: Record<string, unknown> } }[]
    expect(answers.map((a) => a.error?.data)).toEqual(
      batch.map(() => expect.objectContaining({ code: 'LIMIT_EXCEEDED', limit: 'MCP_MAX_BYTES' })),
    )
    // One call was made, and its answer read only until it could not fit: what the tool sent is that room and
    // what the sockets buffered, far from the TOOL_MAX_BYTES a call alone may read.
    const stats = await tools.idle('envcap-big')
    expect(stats.calls).toBe(1)
    expect(stats.bigBytesSent).toBeLessThan(TOOL_MAX_BYTES / 4)
  })
})
