// The examples /docs pre-fills for what the embedded store cannot answer 2xx
// (writes, one version, promote), sent as Swagger UI sends them to a Redis
// with ADMIN_TOKEN, as `npm run dev:redis` runs: each answers 2xx. The reads
// are clicked against `npm run dev` in test/e2e/docs-try-it-out.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import document from '../../public/openapi.json'
import { ADMIN, fetchWorker, writableRedis } from '../support/harness'
import type { TestRedis } from '../support/harness'

interface Operation {
  parameters?: { name: string; in: string; schema: { example?: unknown } }[]
  requestBody?: { content: { 'application/json': { example?: unknown } } }
}

const paths = document.paths as unknown as Record<string, Record<string, Operation>>

let db: TestRedis
let env: Env

beforeAll(async () => ({ db, env } = await writableRedis()))
afterAll(() => db.release())

/** `method path` sent with its pre-filled path parameters and body, and the admin token: the status and the body. */
async function execute(method: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const operation = paths[path]?.[method]
  expect(operation, `${method} ${path}`).toBeDefined()
  let url = path
  // Swagger UI sends no query parameter it has no value for: none is pre-filled.
  for (const p of operation?.parameters ?? []) {
    if (p.in === 'path') url = url.replace(`{${p.name}}`, String(p.schema.example))
  }
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN}` }
  const example = operation?.requestBody?.content['application/json'].example
  if (example !== undefined) headers['content-type'] = 'application/json'
  const init = {
    method: method.toUpperCase(),
    headers,
    body: example === undefined ? undefined : JSON.stringify(example),
  }
  const res = await fetchWorker(env, url, init)
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe('the write examples of /docs, on Redis with ADMIN_TOKEN', () => {
  it.each(['extensions', 'prompts', 'environs', 'tools'])(
    '%s: put, its version read back, then deleted',
    async (kind) => {
      const path = `/api/${kind}/{${kind.slice(0, -1)}_id}`
      const put = await execute('put', path)
      expect(put, JSON.stringify(put.body)).toMatchObject({ status: 200, body: { data: { version: 1 } } })
      // The version path's example is 1: what a first write, or dev:redis's seeding of examples/, makes.
      const id = (put.body.data as { id: string }).id
      const version = await fetchWorker(env, `/api/${kind}/${id}/versions/1`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      })
      expect(version.status).toBe(200)
      const removed = await execute('delete', path)
      expect(removed, JSON.stringify(removed.body)).toMatchObject({ status: 200, body: { data: { version: 2 } } })
    },
  )

  it('promote: the example label, empty, promotes nothing', async () => {
    expect(await execute('post', '/api/labels/{label}/promote')).toEqual({
      status: 200,
      body: { status: 'success', data: [] },
    })
  })
})
