// Issue 29, point 4: while Redis fails (here the bridge stalls it, and REDIS_TIMEOUT_MS passes), the render path
// answers from last good copies no older than STORE_STALE_MAX_S, and says so; writes never pretend. The clock is
// moved with a fake Date, never waited for.
import { env as bindings } from 'cloudflare:test'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Env } from '../../lib/env'
import { writeSnapshots } from '../../lib/render/snapshots'
import { reconciled } from '../support/reconciled'
import { ADMIN, call, chatEnv, fetchWorker, freshRedis, logged } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'

let db: TestRedis
let env: Env

/** Redis fails at 100 ms, long before a render's deadline: its failure, not the deadline, is what is answered. */
const FAILING_FAST = { REDIS_TIMEOUT_MS: '100', RENDER_TIMEOUT_MS: '10000' }

/** The Worker's environment on `db`: a provider for chats, writes allowed, Redis failing fast, the KV snapshots. */
function environment(db: TestRedis): Env {
  return { ...chatEnv(db), ADMIN_TOKEN: ADMIN, ...FAILING_FAST, SNAPSHOTS: (bindings as Env).SNAPSHOTS }
}

async function seed(db: TestRedis): Promise<void> {
  await db.redis.mset({
    'shenma:environs:team:lang': 'go',
    'shenma:templates:team:seen': { prompt: 'seen in {{.team.lang}}' },
    'shenma:templates:team:snapped': { prompt: 'snapped in {{.team.lang}}' },
  })
}

beforeAll(async () => {
  db = await freshRedis()
  env = environment(db)
  await seed(db)
})
afterAll(() => db.release())

afterEach(async () => {
  await db.stall(false)
  vi.useRealTimers()
})

const render = (id: string, over: Env = {}, query = '', on = env) =>
  call({ ...on, ...over }, 'POST', `/api/prompts/${id}/render${query}`, {})

/** Stops the clock, and moves it on by `seconds`: what the isolate, the location and KV hold is that much older. */
function later(seconds: number): void {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.now() + seconds * 1000)
}

function expectFresh(answer: Answer, text: string): void {
  expect(answer.status).toBe(200)
  expect(answer.body.rendered_prompt).toBe(text)
  expect(answer.headers.get('x-prompt-stale')).toBeNull()
  expect(answer.body.warnings).toBeUndefined()
}

/**
 * Redis is back: the first answer may still come from the copies (this isolate saw Redis fail last, and its read
 * of Redis, done by the time the answer is, ends that); the next is fresh.
 */
async function expectFreshAgain(answer: () => Promise<Answer>, text: string): Promise<void> {
  const first = await answer()
  expectFresh(first.headers.get('x-prompt-stale') === null ? first : await answer(), text)
}

function expectStale(answer: Answer, text: string, ageS: number): void {
  expect(answer.status).toBe(200)
  expect(answer.body.rendered_prompt).toBe(text)
  expect(answer.headers.get('x-prompt-stale')).toBe(String(ageS))
  expect(answer.body.warnings).toEqual([
    {
      code: 'STORE_STALE',
      message: `Redis is unavailable: answered from a copy read ${ageS} s ago (STORE_STALE_MAX_S is 3600)`,
      age_s: ageS,
    },
  ])
}

const unavailable = { status: 503, code: 'STORE_UNAVAILABLE' }

describe('while Redis fails', () => {
  it('renders a prompt this isolate rendered before from its copy, says how old, and logs a warning', async () => {
    expectFresh(await render('team.seen'), 'seen in go')
    later(60)
    await db.stall(true)
    const { result, lines } = await logged(() => render('team.seen'))
    expectStale(result, 'seen in go', 60)
    const line = lines.find((l) => l.msg === 'request')
    expect(line).toMatchObject({ level: 'warn', status: 200, stale_s: 60 })

    // Past STORE_STALE_MAX_S the copy is too old to serve.
    const tooOld = await render('team.seen', { STORE_STALE_MAX_S: '59' })
    expect({ status: tooOld.status, code: tooOld.body.code }).toEqual(unavailable)
    // And 0 serves none.
    const none = await render('team.seen', { STORE_STALE_MAX_S: '0' })
    expect({ status: none.status, code: none.body.code }).toEqual(unavailable)

    // Back to the real clock: what the recovery reads is stored as read now, not a minute ahead, for the tests after.
    vi.useRealTimers()
    await db.stall(false)
    await expectFreshAgain(() => render('team.seen'), 'seen in go')
  })

  it('answers a draft, a chat and MCP prompts/get and resources/read from the copies too, each saying so', async () => {
    const resource = { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'environ://team/lang' } }
    expectFresh(await render('team.seen'), 'seen in go')
    const read = await call(env, 'POST', '/mcp', resource)
    expect(read.headers.get('x-prompt-stale')).toBeNull()
    expect(read.body.result).not.toHaveProperty('_meta')
    later(30)
    await db.stall(true)

    const draft = await call(env, 'POST', '/api/render', { prompt: 'draft in {{.team.lang}}' })
    expect(draft.status).toBe(200)
    expect(draft.headers.get('x-prompt-stale')).toBe('30')
    expect(draft.body.warnings).toMatchObject([{ code: 'STORE_STALE', age_s: 30 }])

    const chat = await call(env, 'POST', '/api/prompts/team.seen/chat', { model: 'ok' })
    expect(chat.status).toBe(200)
    expect(chat.headers.get('x-prompt-stale')).toBe('30')

    const rpc = { jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'team.seen' } }
    const mcp = await call(env, 'POST', '/mcp', rpc)
    expect(mcp.status).toBe(200)
    expect(mcp.headers.get('x-prompt-stale')).toBe('30')
    expect(mcp.body.result).toMatchObject({
      messages: [{ role: 'user', content: { type: 'text', text: 'seen in go' } }],
      _meta: { warnings: [{ code: 'STORE_STALE', age_s: 30 }] },
    })

    const stale = await call(env, 'POST', '/mcp', resource)
    expect(stale.headers.get('x-prompt-stale')).toBe('30')
    expect(stale.body.result).toEqual({
      contents: [{ uri: 'environ://team/lang', mimeType: 'application/json', text: '"go"' }],
      _meta: { warnings: [expect.objectContaining({ code: 'STORE_STALE', age_s: 30 })] },
    })
  })

  it('renders a prompt never rendered here from its KV snapshot; one written after the snapshot is 503', async () => {
    // A database of its own: nothing of it is in this isolate or location, as where the prompt was never served.
    const own = await freshRedis()
    const ownEnv = environment(own)
    const renderOwn = (id: string, query = '') => render(id, {}, query, ownEnv)
    try {
      await seed(own)
      later(0)
      // What the Cron Trigger runs: the record index's reconcile, then, with the index ready, the snapshots.
      await reconciled(own, ownEnv)
      expect(await writeSnapshots(ownEnv)).toEqual({ written: 0, unchanged: 2, skipped: 0, cursor: '' })
      // A variable both read changed: both written again.
      await own.redis.set('shenma:environs:team:lang', 'zig')
      expect(await writeSnapshots(ownEnv)).toEqual({ written: 2, unchanged: 0, skipped: 0, cursor: '' })
      await own.redis.set('shenma:templates:team:after', { prompt: 'after in {{.team.lang}}' })
      later(120)
      await own.stall(true)

      expectStale(await renderOwn('team.snapped'), 'snapped in zig', 120)
      const after = await renderOwn('team.after')
      expect({ status: after.status, code: after.body.code }).toEqual(unavailable)
      // A label reads keys the base's snapshot does not hold.
      const labeled = await renderOwn('team.snapped', '?label=preview')
      expect({ status: labeled.status, code: labeled.body.code }).toEqual(unavailable)

      await own.stall(false)
      await expectFreshAgain(() => renderOwn('team.after'), 'after in zig')
    } finally {
      await own.stall(false)
      await own.release()
    }
  })

  it('answers from the copy with the default timeouts too, whether Redis hangs or is gone', async () => {
    // REDIS_TIMEOUT_MS (2000) is past the render's deadline (500): the reads with a copy wait half the deadline in all.
    const own = await freshRedis()
    const defaults = { ...environment(own), REDIS_TIMEOUT_MS: undefined, RENDER_TIMEOUT_MS: undefined }
    try {
      await seed(own)
      expectFresh(await render('team.seen', {}, '', defaults), 'seen in go')
      later(30)
      await own.stall(true)
      expectStale(await render('team.seen', {}, '', defaults), 'seen in go', 30)
      await own.stall(false)
      await own.down(true)
      // Two seconds on, Redis is asked again (it was failing: at most once a second), and fails otherwise.
      vi.setSystemTime(Date.now() + 2000)
      const { result, lines } = await logged(() => render('team.seen', {}, '', defaults))
      expectStale(result, 'seen in go', 32)
      expect(lines.find((l) => l.msg === 'request')).toMatchObject({ cache: { stale: expect.any(Number) } })
      vi.useRealTimers()
      await own.down(false)
      await expectFreshAgain(() => render('team.seen', {}, '', defaults), 'seen in go')
    } finally {
      await own.stall(false)
      await own.down(false)
      await own.release()
    }
  })

  it('answers a write 503, and Redis holds nothing of it afterwards', async () => {
    await db.stall(true)
    const put = await fetchWorker(env, '/api/prompts/team.written', {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'never' }),
    })
    expect({ status: put.status, code: ((await put.json()) as { code: string }).code }).toEqual(unavailable)
    await db.stall(false)
    expect(await db.redis.keys('shenma:*written*')).toEqual([])
  })
})
