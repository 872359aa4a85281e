// Rollouts against the real Redis behind the Upstash bridge: a prompt served from weighted versions,
// sticky by a header or an arg, through the Worker's own routes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { bucketOf, checkRollout, versionAt } from '../../lib/rollout'
import { callAsAdmin, fetchWorker, get, logged, writableRedis } from '../support/harness'
import type { TestRedis } from '../support/harness'

let db: TestRedis
let env: Env

beforeAll(async () => ({ db, env } = await writableRedis()))
afterAll(() => db.release())

/** Writes prompt `id` `count` times: version n says `v<n>`. */
async function versions(id: string, count: number, label?: string): Promise<void> {
  const query = label === undefined ? '' : `?label=${label}`
  for (let n = 1; n <= count; n++) {
    const { status } = await callAsAdmin(env, 'PUT', `/api/prompts/${id}${query}`, { prompt: `v${n}` })
    expect(status).toBe(200)
  }
}

const setRollout = (id: string, body: unknown, query = '') =>
  callAsAdmin(env, 'PUT', `/api/prompts/${id}/rollout${query}`, body)

/** A render with `headers`: the version its header says, and the version its text says (`v<n>`). */
async function render(path: string, headers: Record<string, string> = {}, args: unknown = {}) {
  const res = await fetchWorker(env, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ args }),
  })
  const body = (await res.json()) as { rendered_prompt?: string; code?: string }
  expect(res.status, JSON.stringify(body)).toBe(200)
  const said = Number(res.headers.get('x-prompt-version'))
  expect(body.rendered_prompt).toBe(`v${said}`)
  return said
}

/** The version each user is served, rendered 20 at a time. */
async function servedTo(users: readonly string[]): Promise<number[]> {
  const served: number[] = []
  for (let at = 0; at < users.length; at += 20) {
    const batch = users.slice(at, at + 20)
    served.push(...(await Promise.all(batch.map((u) => render('/api/prompts/roll.p/render', { 'X-User-Id': u })))))
  }
  return served
}

describe('a rollout', () => {
  it('serves 90/10 to 2,000 users, each always the same version, and raising 8 to 50 keeps every user 8 had', async () => {
    await versions('roll.p', 8)
    const started = await setRollout('roll.p', {
      versions: [
        { version: 7, weight: 90 },
        { version: 8, weight: 10 },
      ],
      sticky: 'header:X-User-Id',
    })
    expect(started.status).toBe(200)
    expect(started.body.data).toEqual({
      id: 'roll.p',
      label: null,
      versions: [
        { version: 8, weight: 10 },
        { version: 7, weight: 90 },
      ],
      sticky: 'header:X-User-Id',
    })
    const users = Array.from({ length: 2000 }, (_, i) => `user-${i}`)
    const first = await servedTo(users)
    const eights = first.filter((n) => n === 8).length
    expect(eights).toBeGreaterThanOrEqual(140)
    expect(eights).toBeLessThanOrEqual(260)
    expect(first.every((n) => n === 7 || n === 8)).toBe(true)
    // Each user's version is the documented hash's: the same on every render.
    const rollout = checkRollout({
      versions: [
        { version: 7, weight: 90 },
        { version: 8, weight: 10 },
      ],
    })
    expect(first).toEqual(users.map((u) => versionAt(rollout, bucketOf('roll.p', u))))
    expect(await servedTo(users.slice(0, 200))).toEqual(first.slice(0, 200))

    const raised = await setRollout('roll.p', {
      versions: [
        { version: 7, weight: 50 },
        { version: 8, weight: 50 },
      ],
      sticky: 'header:X-User-Id',
    })
    expect(raised.status).toBe(200)
    const second = await servedTo(users)
    expect(users.filter((_, i) => first[i] === 8 && second[i] !== 8)).toEqual([])
    const half = second.filter((n) => n === 8).length
    expect(half).toBeGreaterThan(800)
    expect(half).toBeLessThan(1200)
  }, 120_000)

  it('is refused unless 2 to 10 kept versions of the prompt weigh 100 together; GET shows it, DELETE ends it', async () => {
    await versions('roll.q', 3)
    const missing = await setRollout('roll.q', {
      versions: [
        { version: 3, weight: 50 },
        { version: 9, weight: 50 },
      ],
    })
    expect(missing.status).toBe(400)
    expect(missing.body.message).toMatch(/version 9 is not a version kept of shenma:templates:roll:q/)
    const unbalanced = await setRollout('roll.q', {
      versions: [
        { version: 3, weight: 50 },
        { version: 2, weight: 40 },
      ],
    })
    expect(unbalanced.status).toBe(400)
    expect(unbalanced.body.message).toMatch(/sum to 100, not 90/)
    expect((await get(env, '/api/prompts/roll.q/rollout')).status).toBe(404)
    expect(await db.redis.keys('shenma:rollouts:*')).not.toContain('shenma:rollouts:base:roll.q')

    const all2 = {
      versions: [
        { version: 2, weight: 100 },
        { version: 3, weight: 0 },
      ],
    }
    expect((await setRollout('roll.q', all2)).status).toBe(200)
    const shown = await get(env, '/api/prompts/roll.q/rollout')
    expect(shown.body.data).toMatchObject({ label: null, sticky: null })
    // The prompt's own answer carries it (the playground shows it), read with the prompt.
    const prompt = await get(env, '/api/prompts/roll.q')
    expect((prompt.body.data as { rollout?: unknown }).rollout).toEqual({
      label: null,
      versions: [
        { version: 3, weight: 0 },
        { version: 2, weight: 100 },
      ],
      sticky: null,
    })
    expect((await get(env, '/api/prompts/roll.q?version=1')).body.data).not.toHaveProperty('rollout')
    expect(await render('/api/prompts/roll.q/render')).toBe(2)
    // ?version= is exactly that version, whatever the rollout.
    expect(await render('/api/prompts/roll.q/render?version=1')).toBe(1)

    const ended = await callAsAdmin(env, 'DELETE', '/api/prompts/roll.q/rollout')
    expect(ended.status).toBe(200)
    expect(await render('/api/prompts/roll.q/render')).toBe(3)
    expect((await callAsAdmin(env, 'DELETE', '/api/prompts/roll.q/rollout')).status).toBe(404)
  })

  it('goes on serving the versions it names after a write; a sticky arg picks as a header does', async () => {
    await versions('roll.w', 2)
    const body = {
      versions: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
      sticky: 'arg:user',
    }
    expect((await setRollout('roll.w', body)).status).toBe(200)
    await versions('roll.w', 1) // version 3, v1 as text: the rollout still names 1 and 2
    const rollout = checkRollout(body)
    for (const user of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const served = await render('/api/prompts/roll.w/render', {}, { user })
      expect(served).toBe(versionAt(rollout, bucketOf('roll.w', user)))
    }
  })

  it("is served to MCP's prompts/get too, the sticky header read from the MCP request", async () => {
    await versions('roll.m', 2)
    const body = {
      versions: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
      sticky: 'header:X-User-Id',
    }
    expect((await setRollout('roll.m', body)).status).toBe(200)
    const rollout = checkRollout(body)
    for (const user of ['m1', 'm2', 'm3', 'm4']) {
      const res = await fetchWorker(env, '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'x-user-id': user },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'roll.m' } }),
      })
      const answer = (await res.json()) as { result: { messages: { content: { text: string } }[] } }
      const text = answer.result.messages[0]?.content.text
      expect(text).toBe(`v${versionAt(rollout, bucketOf('roll.m', user))}`)
    }
  })

  it('says in the log line what it chose and why: a missing sticky header is a random choice', async () => {
    await versions('roll.l', 2)
    const body = {
      versions: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
      sticky: 'header:X-User-Id',
    }
    expect((await setRollout('roll.l', body)).status).toBe(200)
    const { result, lines } = await logged(() => render('/api/prompts/roll.l/render'))
    const line = lines.find((l) => l.msg === 'request')
    expect(line?.rollout).toEqual({
      versions: checkRollout(body).versions,
      chose: result,
      why: 'random: header:X-User-Id missing',
    })
    expect(line?.prompt_version).toBe(result)
  })

  it("costs a render no Redis request beyond the prompt's own read: the rollout is read with it, and cached alike", async () => {
    await versions('roll.c', 2)
    await versions('roll.n', 2)
    const body = {
      versions: [
        { version: 2, weight: 0 },
        { version: 1, weight: 100 },
      ],
    }
    expect((await setRollout('roll.c', body)).status).toBe(200)
    await db.resetRequests()
    expect(await render('/api/prompts/roll.n/render')).toBe(2)
    const plain = await db.requests()
    await db.resetRequests()
    expect(await render('/api/prompts/roll.c/render')).toBe(1)
    const rolled = await db.requests()
    // Version 1's text, read once per isolate (versions never change), in one request.
    expect(rolled - plain).toBe(1)
    await db.resetRequests()
    expect(await render('/api/prompts/roll.c/render')).toBe(1)
    expect(await db.requests()).toBe(0)
  })
})

describe("a label's rollout", () => {
  it("rolls out the label's own versions, is refused where the label serves the base's, and ends when the label is promoted", async () => {
    await versions('roll.b', 1)
    const body = {
      versions: [
        { version: 1, weight: 50 },
        { version: 2, weight: 50 },
      ],
      sticky: 'header:X-User-Id',
    }
    const notOwn = await setRollout('roll.b', body, '?label=feat')
    expect(notOwn.status).toBe(409)
    expect(notOwn.body.message).toMatch(/label 'feat' has no record of its own serving prompt 'roll.b'/)
    await versions('roll.b', 2, 'feat')
    expect((await setRollout('roll.b', body, '?label=feat')).status).toBe(200)
    expect((await get(env, '/api/prompts/roll.b/rollout?label=feat')).body.data).toMatchObject({ label: 'feat' })
    // The base has none: the label's is its own.
    expect((await get(env, '/api/prompts/roll.b/rollout')).status).toBe(404)
    const rollout = checkRollout(body)
    for (const user of ['x', 'y', 'z']) {
      const served = await render('/api/prompts/roll.b/render?label=feat', { 'X-User-Id': user })
      expect(served).toBe(versionAt(rollout, bucketOf('roll.b', user)))
    }

    const promoted = await callAsAdmin(env, 'POST', '/api/labels/feat/promote?force=true')
    expect(promoted.status).toBe(200)
    expect(await db.redis.keys('shenma:rollouts:*feat*')).toEqual([])
    expect((await get(env, '/api/prompts/roll.b/rollout?label=feat')).status).toBe(404)
    // The base got the label's newest text as its version 2, served to everyone.
    expect(await render('/api/prompts/roll.b/render', { 'X-User-Id': 'x' })).toBe(2)
  })
})
