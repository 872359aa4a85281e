// The audit trail: writes, deletions and promotes through the Worker, each kept in a Redis stream (the real
// redis-server behind the Upstash bridge), read back by GET /api/audit newest first, paged and filtered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { call, callAsAdmin, get, logged, runScheduled, writableRedis } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'

let db: TestRedis
let env: Env

beforeAll(async () => ({ db, env } = await writableRedis()))
afterAll(() => db.release())

interface Entry {
  entry_id: string
  action: string
  kind: string
  id: string
  label: string | null
  versions: number[]
  by: string
  at: string
  request_id: string | null
}

const audit = async (query = '') => {
  const answer = await get(env, `/api/audit${query}`)
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.body as { data: Entry[]; next_cursor: string | null }
}

/** What each entry says, without its ids and time. */
const said = (entries: Entry[]) =>
  entries.map(({ action, kind, id, label, versions }) => ({ action, kind, id, label, versions }))

function ok(answer: Answer): string {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  return answer.headers.get('x-request-id') as string
}

describe('the audit trail', () => {
  const requests: string[] = []

  beforeAll(async () => {
    requests.push(ok(await callAsAdmin(env, 'PUT', '/api/prompts/audit.a', { prompt: 'one' })))
    requests.push(ok(await callAsAdmin(env, 'PUT', '/api/prompts/audit.b', { prompt: 'two' })))
    requests.push(ok(await callAsAdmin(env, 'DELETE', '/api/prompts/audit.b')))
    requests.push(ok(await callAsAdmin(env, 'PUT', '/api/prompts/audit.a?label=feat-a', { prompt: 'three' })))
    requests.push(ok(await callAsAdmin(env, 'PUT', '/api/environs/audit.env?label=feat-a', { x: 1 })))
    requests.push(ok(await callAsAdmin(env, 'POST', '/api/labels/feat-a/promote')))
  })

  it('lists every write, deletion and promote newest first, with who, when and the request', async () => {
    const { data, next_cursor } = await audit()
    // One entry per record promoted, each with the version it got on the base.
    expect(said(data)).toEqual([
      { action: 'promote', kind: 'prompts', id: 'audit.a', label: null, versions: [2] },
      { action: 'promote', kind: 'environs', id: 'audit.env', label: null, versions: [1] },
      { action: 'write', kind: 'environs', id: 'audit.env', label: 'feat-a', versions: [1] },
      { action: 'write', kind: 'prompts', id: 'audit.a', label: 'feat-a', versions: [1] },
      { action: 'delete', kind: 'prompts', id: 'audit.b', label: null, versions: [2] },
      { action: 'write', kind: 'prompts', id: 'audit.b', label: null, versions: [1] },
      { action: 'write', kind: 'prompts', id: 'audit.a', label: null, versions: [1] },
    ])
    expect(next_cursor).toBeNull()
    const promote = requests.at(-1) as string
    expect(data.map((e) => e.request_id)).toEqual([promote, ...[...requests].reverse()])
    expect(data.every((e) => e.by === 'admin' && !Number.isNaN(Date.parse(e.at)))).toBe(true)
    // The promote's version is the one the base's history lists.
    const versions = await get(env, '/api/prompts/audit.a/versions')
    expect((versions.body.data as { version: number }[])[0]?.version).toBe(2)
  })

  it('pages by cursor, each entry once', async () => {
    const first = await audit('?limit=3')
    expect(first.data).toHaveLength(3)
    expect(first.next_cursor).toBe(first.data[2]?.entry_id)
    const second = await audit(`?limit=3&cursor=${first.next_cursor}`)
    const third = await audit(`?limit=3&cursor=${second.next_cursor}`)
    expect(third.data).toHaveLength(1)
    expect(third.next_cursor).toBeNull()
    const all = await audit()
    expect([...first.data, ...second.data, ...third.data]).toEqual(all.data)
  })

  it('filters by id, action and publisher', async () => {
    expect(said((await audit('?id=audit.a')).data).map((e) => e.action)).toEqual(['promote', 'write', 'write'])
    expect(said((await audit('?action=delete')).data)).toEqual([
      { action: 'delete', kind: 'prompts', id: 'audit.b', label: null, versions: [2] },
    ])
    expect((await audit('?by=admin')).data).toHaveLength(7)
    expect(await audit('?by=nobody')).toEqual({ status: 'success', data: [], next_cursor: null })
  })

  it('refuses a bad query with 400, naming the parameter', async () => {
    for (const query of ['?limit=201', '?limit=0', '?cursor=abc', '?action=rename']) {
      const answer = await get(env, `/api/audit${query}`)
      expect(answer.status, query).toBe(400)
      expect(answer.body.code).toBe('BAD_REQUEST')
    }
  })
})

describe('the audit trail, bounded', () => {
  it('reads at most 10 x limit entries for a filtered page, and answers a cursor to look further back', async () => {
    const { db, env } = await writableRedis()
    try {
      for (let i = 0; i < 12; i++) ok(await callAsAdmin(env, 'PUT', '/api/environs/bound.v', { n: i }))
      await db.resetRequests()
      const first = await get(env, '/api/audit?by=nobody&limit=1')
      expect(first.body).toMatchObject({ data: [], next_cursor: expect.any(String) })
      // One request, one XREVRANGE, asking for 10 entries and one more.
      expect(await db.requests()).toBe(1)
      expect((await db.commands()).filter(([name]) => name === 'XREVRANGE')).toEqual([
        ['XREVRANGE', 'shenma:audit', '+', '-', 'COUNT', '11'],
      ])
      const rest = await get(env, `/api/audit?by=nobody&limit=1&cursor=${first.body.next_cursor as string}`)
      expect(rest.body).toMatchObject({ data: [], next_cursor: null })
    } finally {
      await db.release()
    }
  })

  it('trims the stream to about AUDIT_MAX_ENTRIES', async () => {
    const { db, env } = await writableRedis()
    try {
      const over = { ...env, AUDIT_MAX_ENTRIES: '5' }
      ok(await callAsAdmin(over, 'PUT', '/api/environs/trim.v', { n: 0 }))
      const [xadd] = (await db.commands()).filter(([name]) => name === 'XADD')
      expect(xadd?.slice(0, 6)).toEqual(['XADD', 'shenma:audit', 'MAXLEN', '~', '5', '*'])
    } finally {
      await db.release()
    }
  })
})

describe('the audit trail and the writes', () => {
  it('keeps nothing for a write that changed nothing (skip_unchanged)', async () => {
    ok(await callAsAdmin(env, 'PUT', '/api/prompts/audit.same', { prompt: 'same' }))
    const before = (await audit()).data.length
    const again = await callAsAdmin(env, 'PUT', '/api/prompts/audit.same?skip_unchanged=true', { prompt: 'same' })
    expect(again.body.data).toMatchObject({ unchanged: true })
    expect((await audit()).data).toHaveLength(before)
  })

  it('acknowledges a write whose audit entry Redis refused, and says so in its log line', async () => {
    const before = (await audit()).data.length
    await db.failNext('XADD')
    const { result, lines } = await logged(() =>
      callAsAdmin(env, 'PUT', '/api/prompts/audit.lost', { prompt: 'kept anyway' }),
    )
    expect(result.status).toBe(200)
    expect(result.body.data).toMatchObject({ version: 1 })
    const line = lines.find((l) => l.msg === 'request')
    expect(line?.events).toMatchObject([{ level: 'warn', msg: 'the audit trail missed changes', count: 1 }])
    expect(await db.redis.get('shenma:templates:audit:lost')).toEqual({ prompt: 'kept anyway' })
    expect((await audit()).data).toHaveLength(before)
  })

  it('stays out of the record index: the scheduled reconcile leaves the listings as they were', async () => {
    await runScheduled(env)
    const listed = await get(env, '/api/prompts')
    expect(listed.status).toBe(200)
    expect(listed.body.skipped).toBeUndefined()
    expect(await db.redis.type('shenma:audit')).toBe('stream')
  })

  it('is an empty page on the embedded store, which takes no writes', async () => {
    expect((await call({}, 'GET', '/api/audit')).body).toEqual({ status: 'success', data: [], next_cursor: null })
  })
})
