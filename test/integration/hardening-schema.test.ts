// Issue 27, rows 2 and 12: JSON Schemas that arrive at run time (a draft's
// parameters, a written or stored record's) are checked before the validator
// interprets them. Each row's input, sent as a draft, is a 400 naming the
// keyword; a tool written with one is refused; one written straight into
// Redis is skipped as invalid, so a render of it answers at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { ADMIN, call, fetchWorker, writableRedis } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'

let db: TestRedis
let env: Env

beforeAll(async () => ({ db, env } = await writableRedis()))
afterAll(() => db.release())

/** A chain of `levels` definitions, each applying the next through `$ref`s. */
function chain(levels: number, link: (next: { $ref: string }) => unknown): Record<string, unknown> {
  const definitions: Record<string, unknown> = {}
  for (let i = 0; i < levels; i++) definitions[`d${i}`] = link({ $ref: `#/definitions/d${i + 1}` })
  definitions[`d${levels}`] = { type: 'string' }
  return { type: 'object', properties: { x: { $ref: '#/definitions/d0' } }, definitions }
}

/** Row 2's and row 12's parameters, and an argument that would freeze the validator. */
const ROWS: [string, Record<string, unknown>, unknown, string][] = [
  ['format url', { u: { type: 'string', format: 'url' } }, { u: `http://${'a'.repeat(33)}!` }, 'format'],
  [
    'uniqueItems over 40,000 arrays',
    { xs: { type: 'array', uniqueItems: true } },
    { xs: Array.from({ length: 40_000 }, (_, i) => [i]) },
    'uniqueItems',
  ],
  ['a 24-level if/then/else chain', chain(24, (next) => ({ if: next, then: next, else: next })), { x: 'a' }, '$ref'],
  ['an 18-level anyOf chain', chain(18, (next) => ({ anyOf: [next, next] })), { x: 'a' }, '$ref'],
  ['a self-$ref', { type: 'object', properties: { x: { $ref: '#' } } }, { x: {} }, '$ref'],
]

async function put(path: string, body: unknown): Promise<Answer> {
  const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }
  const res = await fetchWorker(env, path, { method: 'PUT', headers, body: JSON.stringify(body) })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> }
}

function tool(name: string, parameters: unknown) {
  return {
    name,
    module: 'unsafe',
    type: 'restful',
    description: 'never called',
    parameters,
    restful: { url: 'http://127.0.0.1:1/never' },
  }
}

describe('a draft whose parameters could freeze the validator', () => {
  it.each(ROWS)('%s: 400 naming the keyword', async (_, parameters, args, keyword) => {
    const { status, body } = await call(env, 'POST', '/api/render', { prompt: 'x', parameters, args })
    expect(status).toBe(400)
    expect(body).toMatchObject({ code: 'BAD_REQUEST', keyword })
    expect(body.message).toContain(`${keyword} at #/`)
  })

  it('an ordinary one still renders', async () => {
    const parameters = {
      tags: { type: 'array', uniqueItems: true, maxItems: 10 },
      u: { type: 'string', format: 'uri' },
    }
    const ok = await call(env, 'POST', '/api/render', { prompt: '{{.args.u}}', parameters, args: { u: 'https://a.b' } })
    expect(ok.status).toBe(200)
    const dup = await call(env, 'POST', '/api/render', { prompt: 'x', parameters, args: { tags: [1, 1] } })
    expect(dup.status).toBe(400)
    expect(dup.body.code).toBe('INVALID_ARGS')
  })
})

describe('a record holding such a schema', () => {
  it('is refused when written, naming the keyword', async () => {
    const { status, body } = await put('/api/tools/unsafe_url', tool('url', { u: { type: 'string', format: 'url' } }))
    expect(status).toBe(400)
    expect(JSON.stringify(body)).toMatch(/format at #\/properties\/u\/format/)
    expect(await db.redis.exists('shenma:tools:unsafe:url')).toBe(0)
  })

  it('written straight into Redis, is skipped as invalid: a render of it answers at once', async () => {
    for (const [i, [, parameters]] of ROWS.entries()) {
      await db.redis.set(`shenma:templates:unsafe:p${i}`, { prompt: 'x', parameters })
      await db.redis.set(`shenma:tools:unsafe:t${i}`, tool(`t${i}`, parameters))
    }
    for (const [i, [, , args]] of ROWS.entries()) {
      const { status, body } = await call(env, 'POST', `/api/prompts/unsafe.p${i}/render`, { args })
      expect(status).toBe(404)
      expect(body.message).toMatch(/JSON Schema refused/)
    }
    const listed = await call(env, 'GET', '/api/tools')
    const skipped = (listed.body.skipped as { key: string; reason: string }[]).filter((s) => s.key.includes(':unsafe:'))
    expect(skipped).toHaveLength(ROWS.length)
    for (const s of skipped) expect(s.reason).toMatch(/\$\.parameters is a JSON Schema refused/)
  })
})
