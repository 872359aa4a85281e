// Issue 27 follow-up: a record's own schema (jsonschema/prompt.json) bounds
// a prompt's `tools` (at most 128, as many as a chat request offers), and
// their uniqueness is only checked within that bound: a PUT of 50,000 tools
// is a 400 naming maxItems rather than 2.5e9 comparisons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { ADMIN, fetchWorker, writableRedis } from '../support/harness'
import type { TestRedis } from '../support/harness'

let db: TestRedis
let env: Env

beforeAll(async () => ({ db, env } = await writableRedis()))
afterAll(() => db.release())

async function put(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
  const res = await fetchWorker(env, path, { method: 'PUT', headers, body: JSON.stringify(body) })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe("a prompt's tools", () => {
  it('50,000 of them: 400 naming maxItems, nothing written', async () => {
    const tools = Array.from({ length: 50_000 }, (_, i) => `tool_${i}`)
    const { status, body } = await put('/api/prompts/bounds.many', { prompt: 'x', tools })
    expect(status).toBe(400)
    expect(body).toMatchObject({
      code: 'BAD_REQUEST',
      details: [{ where: '$.tools', message: 'must NOT have more than 128 items' }],
    })
    expect(await db.redis.exists('shenma:templates:bounds:many')).toBe(0)
  })

  it('128 distinct ones are written; a duplicate among them is named', async () => {
    const tools = Array.from({ length: 128 }, (_, i) => `tool_${i}`)
    expect((await put('/api/prompts/bounds.fine', { prompt: 'x', tools })).status).toBe(200)
    const dup = await put('/api/prompts/bounds.dup', { prompt: 'x', tools: [...tools.slice(1), 'tool_1'] })
    expect(dup.status).toBe(400)
    const message = 'must NOT have duplicate items (items ## 127 and 0 are identical)'
    expect(dup.body).toMatchObject({ details: [{ where: '$.tools', message }] })
  })
})
