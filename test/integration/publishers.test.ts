// Publishers (PUBLISHERS beside ADMIN_TOKEN), their scopes, the `by` of versions, the rollback route, and
// promote approvals, through the real Worker against the real Redis behind the Upstash bridge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { ADMIN, callWithToken, writableRedis } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'

let db: TestRedis
let env: Env

const TOKENS = { ci: 'ci-token', author: 'author-token', lead: 'lead-token' }

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

beforeAll(async () => {
  let base: Env
  ;({ db, env: base } = await writableRedis())
  const publishers = [
    { name: 'ci', token_sha256: await sha256(TOKENS.ci), scopes: ['write:feat-*'] },
    // Upper-case hex is the same digest.
    {
      name: 'author',
      token_sha256: (await sha256(TOKENS.author)).toUpperCase(),
      scopes: ['write:appr-*', 'promote', 'approve'],
    },
    { name: 'lead', token_sha256: await sha256(TOKENS.lead), scopes: ['approve', 'rollback'] },
  ]
  env = { ...base, PUBLISHERS: JSON.stringify(publishers) }
})
afterAll(() => db.release())

/** A request with `token` as its bearer token, `body` sent as JSON. */
const send = (token: string, method: string, path: string, body?: unknown, over: Env = {}): Promise<Answer> =>
  callWithToken({ ...env, ...over }, token, method, path, body)

const versionsOf = async (path: string) =>
  (await send(ADMIN, 'GET', path)).body.data as { version: number; by: string | null; message: string | null }[]

describe('publishers and scopes', () => {
  it('lets a publisher scoped write:feat-* write feat-x, keeps its name as by, and refuses the base and promote', async () => {
    const written = await send(TOKENS.ci, 'PUT', '/api/prompts/pub.p?label=feat-x', { prompt: 'from ci' })
    expect(written.status).toBe(200)
    expect(written.body.data).toMatchObject({ label: 'feat-x', version: 1 })
    expect(await versionsOf('/api/prompts/pub.p/versions?label=feat-x')).toMatchObject([{ version: 1, by: 'ci' }])
    expect((await send(ADMIN, 'GET', '/api/audit?by=ci')).body.data).toMatchObject([
      { action: 'write', kind: 'prompts', id: 'pub.p', label: 'feat-x', versions: [1], by: 'ci' },
    ])

    const keysBefore = (await db.redis.keys('*')).sort()
    const base = await send(TOKENS.ci, 'PUT', '/api/prompts/pub.p', { prompt: 'onto the base' })
    expect(base.status).toBe(403)
    expect(base.body).toMatchObject({ code: 'FORBIDDEN', scope: 'write:base' })
    expect(base.body.message).toBe("publisher 'ci' lacks the scope 'write:base'")
    const other = await send(TOKENS.ci, 'DELETE', '/api/prompts/pub.p?label=release')
    expect(other.body).toMatchObject({ code: 'FORBIDDEN', scope: 'write:release' })
    const promoted = await send(TOKENS.ci, 'POST', '/api/labels/feat-x/promote')
    expect(promoted.status).toBe(403)
    expect(promoted.body).toMatchObject({ code: 'FORBIDDEN', scope: 'promote' })
    const rolled = await send(TOKENS.ci, 'POST', '/api/prompts/pub.p/rollback?to=1&label=feat-x')
    expect(rolled.body).toMatchObject({ code: 'FORBIDDEN', scope: 'rollback' })
    expect((await db.redis.keys('*')).sort()).toEqual(keysBefore)
  })

  it('keeps ADMIN_TOKEN as the publisher admin, and refuses an unknown token with 401', async () => {
    expect((await send(ADMIN, 'PUT', '/api/environs/pub.e', { v: 1 })).status).toBe(200)
    expect(await versionsOf('/api/environs/pub.e/versions')).toMatchObject([{ version: 1, by: 'admin' }])
    const unknown = await send('nobody', 'PUT', '/api/environs/pub.e', { v: 2 })
    expect(unknown.status).toBe(401)
    expect(unknown.body.code).toBe('UNAUTHORIZED')
  })

  it('enables writes with PUBLISHERS alone, and lets a publisher read where API_TOKEN is asked', async () => {
    const over = { ADMIN_TOKEN: '', API_TOKEN: 'reader' }
    expect((await send(TOKENS.ci, 'PUT', '/api/environs/pub.alone?label=feat-y', { v: 1 }, over)).status).toBe(200)
    expect((await send(ADMIN, 'PUT', '/api/environs/pub.alone?label=feat-y', { v: 2 }, over)).status).toBe(401)
    expect((await send(TOKENS.ci, 'GET', '/api/environs/pub.alone?label=feat-y', undefined, over)).status).toBe(200)
    expect((await send('nobody', 'GET', '/api/environs/pub.alone?label=feat-y', undefined, over)).status).toBe(401)
  })

  it('answers 503 MISCONFIGURED naming PUBLISHERS when it is malformed, and never quotes a hash', async () => {
    const hash = 'ab'.repeat(32)
    for (const [raw, says] of [
      ['{', /not JSON/],
      [JSON.stringify([{ name: 'x', token_sha256: 'nothex', scopes: [] }]), /token_sha256 must be 64 hex/],
      [JSON.stringify([{ name: 'admin', token_sha256: hash, scopes: [] }]), /'admin' is ADMIN_TOKEN's/],
      [JSON.stringify([{ name: 'x', token_sha256: hash, scopes: ['deploy'] }]), /'deploy' is not a scope/],
      [
        JSON.stringify([
          { name: 'x', token_sha256: hash, scopes: [] },
          { name: 'y', token_sha256: hash, scopes: [] },
        ]),
        /another publisher's/,
      ],
    ] as const) {
      const answer = await send(TOKENS.ci, 'PUT', '/api/environs/pub.bad?label=feat-z', { v: 1 }, { PUBLISHERS: raw })
      expect(answer.status, raw).toBe(503)
      expect(answer.body).toMatchObject({ code: 'MISCONFIGURED', setting: 'PUBLISHERS' })
      expect(answer.body.message).toMatch(says)
      expect(answer.body.message).not.toContain(hash)
    }
  })

  it('rolls back through POST /api/{kind}/{id}/rollback with the scope rollback, by its publisher', async () => {
    await send(ADMIN, 'PUT', '/api/prompts/pub.r', { prompt: 'one' })
    await send(ADMIN, 'PUT', '/api/prompts/pub.r', { prompt: 'two' })
    const rolled = await send(TOKENS.lead, 'POST', '/api/prompts/pub.r/rollback?to=1')
    expect(rolled.status).toBe(200)
    expect(rolled.body.data).toMatchObject({ id: 'pub.r', version: 3, to: 1, label: null })
    expect(await db.redis.get('shenma:templates:pub:r')).toEqual({ prompt: 'one' })
    expect(
      (await versionsOf('/api/prompts/pub.r/versions')).map(({ version, by, message }) => [version, by, message]),
    ).toEqual([
      [3, 'lead', 'rollback to version 1'],
      [2, 'admin', null],
      [1, 'admin', null],
    ])
    await send(ADMIN, 'DELETE', '/api/prompts/pub.r')
    const deletion = await send(TOKENS.lead, 'POST', '/api/prompts/pub.r/rollback?to=4')
    expect(deletion.status).toBe(409)
    expect(deletion.body.message).toMatch(/version 4 of prompts pub.r is its deletion/)
    expect((await send(TOKENS.lead, 'POST', '/api/prompts/pub.r/rollback?to=9')).body.code).toBe('VERSION_NOT_FOUND')
  })
})

describe('promote approvals (PROMOTE_APPROVALS=1)', () => {
  const on = { PROMOTE_APPROVALS: '1' }

  it('keeps a promote until another publisher approves it; its author cannot', async () => {
    await send(TOKENS.author, 'PUT', '/api/prompts/appr.p?label=appr-1', { prompt: 'approved text' })
    const asked = await send(TOKENS.author, 'POST', '/api/labels/appr-1/promote?message=ship%20it', undefined, on)
    expect(asked.status).toBe(202)
    expect(asked.body).toEqual({ status: 'success', data: { request: 1, label: 'appr-1', to: null, by: 'author' } })
    // Nothing promoted yet: the base has no such prompt, the label still holds it.
    expect(await db.redis.get('shenma:templates:appr:p')).toBeNull()
    expect(await db.redis.get('shenma:labels:appr-1:templates:appr:p')).toEqual({ prompt: 'approved text' })

    const own = await send(TOKENS.author, 'POST', '/api/labels/appr-1/promote/requests/1/approve', undefined, on)
    expect(own.status).toBe(403)
    expect(own.body).toMatchObject({ code: 'FORBIDDEN' })
    expect(own.body.message).toMatch(/'author' made promote request 1 of label 'appr-1': another publisher approves it/)
    const unscoped = await send(TOKENS.ci, 'POST', '/api/labels/appr-1/promote/requests/1/approve', undefined, on)
    expect(unscoped.body).toMatchObject({ code: 'FORBIDDEN', scope: 'approve' })
    expect(await db.redis.get('shenma:templates:appr:p')).toBeNull()

    const approved = await send(TOKENS.lead, 'POST', '/api/labels/appr-1/promote/requests/1/approve', undefined, on)
    expect(approved.status).toBe(200)
    expect(approved.body.data).toMatchObject([{ kind: 'prompts', id: 'appr.p', key: 'shenma:templates:appr:p' }])
    expect(await db.redis.get('shenma:templates:appr:p')).toEqual({ prompt: 'approved text' })
    expect(await versionsOf('/api/prompts/appr.p/versions')).toMatchObject([
      { version: 1, by: 'author', message: 'ship it; approved by lead (request 1)' },
    ])
    // The trail, newest first: the approval is the approver's, the promote and the write its author's.
    const trail = (await send(ADMIN, 'GET', '/api/audit?id=appr.p')).body.data as { action: string; by: string }[]
    expect(trail.map(({ action, by }) => [action, by])).toEqual([
      ['approve', 'lead'],
      ['promote', 'author'],
      ['write', 'author'],
    ])
    const again = await send(TOKENS.lead, 'POST', '/api/labels/appr-1/promote/requests/1/approve', undefined, on)
    expect(again.status).toBe(404)
    expect(await db.redis.hlen('shenma:promote-requests:appr-1')).toBe(0)
  })

  it('refuses an approval when the label changed since the request, promoting nothing', async () => {
    await send(TOKENS.author, 'PUT', '/api/prompts/appr.q?label=appr-2', { prompt: 'asked' })
    const asked = await send(TOKENS.author, 'POST', '/api/labels/appr-2/promote', undefined, on)
    const n = (asked.body.data as { request: number }).request
    await send(TOKENS.author, 'PUT', '/api/prompts/appr.q?label=appr-2', { prompt: 'slipped in after' })
    const approved = await send(TOKENS.lead, 'POST', `/api/labels/appr-2/promote/requests/${n}/approve`, undefined, on)
    expect(approved.status).toBe(409)
    expect(approved.body.message).toMatch(/changed after promote request/)
    expect(await db.redis.get('shenma:templates:appr:q')).toBeNull()
  })

  it('bounds the requests waiting per label, and numbers them without reuse', async () => {
    await send(TOKENS.author, 'PUT', '/api/prompts/appr.m?label=appr-3', { prompt: 'many' })
    const numbers: number[] = []
    for (let i = 0; i < 20; i++) {
      const asked = await send(TOKENS.author, 'POST', '/api/labels/appr-3/promote', undefined, on)
      numbers.push((asked.body.data as { request: number }).request)
    }
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
    const full = await send(TOKENS.author, 'POST', '/api/labels/appr-3/promote', undefined, on)
    expect(full.status).toBe(422)
    expect(full.body).toMatchObject({ code: 'LIMIT_EXCEEDED', limit: 'MAX_PROMOTE_REQUESTS' })
    expect(await db.redis.hlen('shenma:promote-requests:appr-3')).toBe(20)
  })
})
