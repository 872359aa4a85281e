// Issue 27, row 7: a render read and validated every tool record of the
// catalogue, so a cold render's cost grew with it (387 tools: 4 of 6 cold
// renders passed the deadline). A render, a draft, MCP's prompts/get and
// tools/call and a tool lookup now read only the keys the function names
// they use can stand for. Asserted on the commands Redis received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, fetchWorker, freshRedis, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { restTool } from '../support/records'
import { funcToKeys } from '../../lib/store/keys'
import type { Env } from '../../lib/env'

const tools = toolServer()
const dbs: TestRedis[] = []

afterAll(() => Promise.all(dbs.map((db) => db.release())))

/** A database holding `count` valid tools of module `bulk`, `extra` records, and the prompts of these tests. */
async function catalogue(count: number, extra: Record<string, unknown> = {}): Promise<TestRedis> {
  const db = await freshRedis()
  dbs.push(db)
  const records: Record<string, unknown> = {
    'shenma:templates:t:plain': { prompt: 'Hello {{.args.name}}', parameters: { name: { type: 'string' } } },
    'shenma:templates:t:helpers': { prompt: '{{upper .args.name}}{{if eq 1 1}}!{{end}}' },
    'shenma:templates:t:one': { prompt: '{{(bulk_t0007 "x").query.x}}' },
    ...extra,
  }
  for (let i = 0; i < count; i++) {
    const name = `t${String(i).padStart(4, '0')}`
    records[`shenma:tools:bulk:${name}`] = restTool('bulk', name, `${tools.url}/tools/${name}?group=hardening-render`)
  }
  await db.redis.mset(records)
  return db
}

/** The keys of `shenma:` records of `kind` (base or a label's) that the commands read or listed. */
function reads(commands: string[][], kind: string): { keys: string[]; scans: string[] } {
  const ofKind = new RegExp(`^shenma:(?:labels:[^:]+:)?${kind}:`)
  const keys: string[] = []
  const scans: string[] = []
  for (const [name, ...args] of commands) {
    if (name === 'GET' || name === 'MGET') keys.push(...args.filter((k) => ofKind.test(k)))
    if (name === 'SCAN' && ofKind.test(args[2] ?? '')) scans.push(args[2] as string)
  }
  return { keys: keys.sort(), scans }
}

/** What `run` (cold: the database's first request) made Redis read of tool records. */
async function toolReads(db: TestRedis, run: (env: Env) => Promise<unknown>) {
  await db.resetRequests()
  await run(db.env)
  const commands = await db.commands()
  return { ...reads(commands, 'tools'), commands }
}

const render =
  (id: string, args: Record<string, unknown> = {}, query = '') =>
  (env: Env) =>
    call(env, 'POST', `/api/prompts/${id}/render${query}`, { args })

describe('a cold render reads the tools its templates call, not the catalogue', () => {
  let small: TestRedis
  let large: TestRedis

  beforeAll(async () => {
    ;[small, large] = await Promise.all([catalogue(10), catalogue(400)])
  })

  it('reads no tool record for a prompt that calls no function, with 10 tools as with 400', async () => {
    const cost = async (db: TestRedis) => {
      const { status, body } = await call(db.env, 'POST', '/api/prompts/t.plain/render', { args: { name: 'x' } })
      expect(status).toBe(200)
      expect(body.rendered_prompt).toBe('Hello x')
      return db.commands()
    }
    await Promise.all([small.resetRequests(), large.resetRequests()])
    const [few, many] = await Promise.all([cost(small), cost(large)])
    const keysRead = (commands: string[][]) => commands.flatMap(([name, ...args]) => (name === 'MGET' ? args : []))
    console.log(
      `cold render calling no tool: ${few.length} commands, ${keysRead(few).length} keys read with 10 tools; ` +
        `${many.length} commands, ${keysRead(many).length} keys read with 400`,
    )
    for (const commands of [few, many]) expect(reads(commands, 'tools')).toEqual({ keys: [], scans: [] })
    // Every key read, counted: the same commands, whatever the catalogue holds.
    expect(keysRead(many).sort()).toEqual(keysRead(few).sort())
    expect(many.length).toBe(few.length)
  })

  it('reads only the keys a helper or builtin could be a tool at (a tool named like one wins)', async () => {
    const { keys, scans } = await toolReads(large, render('t.helpers', { name: 'x' }))
    expect(scans).toEqual([])
    expect(keys).toEqual(['shenma:tools:eq', 'shenma:tools:upper'])
  })

  it('reads only the keys of the one tool a prompt calls, then calls it', async () => {
    let answer: unknown
    const { keys, scans } = await toolReads(large, async (env) => {
      answer = (await render('t.one')(env)).body
    })
    expect(answer).toEqual({ status: 'success', rendered_prompt: 'x' })
    expect(scans).toEqual([])
    expect(keys).toEqual(funcToKeys('bulk_t0007'))
    expect(keys).toEqual(['shenma:tools:bulk:t0007', 'shenma:tools:bulk_t0007'])
  })

  it('renders a draft reading only the keys of the tools it calls', async () => {
    const { keys, scans } = await toolReads(large, (env) =>
      call(env, 'POST', '/api/render', { prompt: '{{(bulk_t0003 "y").query.x}}' }).then(({ body }) =>
        expect(body).toMatchObject({ rendered_prompt: 'y' }),
      ),
    )
    expect(scans).toEqual([])
    expect(keys).toEqual(funcToKeys('bulk_t0003'))
  })

  it("serves MCP's prompts/get and tools/call, and GET /api/tools/{id}, reading only the tool's keys", async () => {
    const mcp = (body: unknown) => (env: Env) =>
      fetchWorker(env, '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...(body as object) }),
      }).then(async (res) => expect(await res.json()).toMatchObject({ result: expect.any(Object) }))
    const get = await toolReads(large, mcp({ method: 'prompts/get', params: { name: 't.one' } }))
    const called = await toolReads(
      large,
      mcp({ method: 'tools/call', params: { name: 'bulk_t0042', arguments: { x: 'z' } } }),
    )
    const one = await toolReads(large, (env) =>
      call(env, 'GET', '/api/tools/bulk_t0399').then(({ body }) => expect(body).toMatchObject({ status: 'success' })),
    )
    for (const { scans } of [get, called, one]) expect(scans).toEqual([])
    // prompts/get may find t.one's plan kept from the render above: then it reads nothing at all.
    expect(get.keys.filter((k) => !funcToKeys('bulk_t0007').includes(k))).toEqual([])
    expect(called.keys).toEqual(funcToKeys('bulk_t0042'))
    expect(one.keys).toEqual(funcToKeys('bulk_t0399'))
  })
})

describe('which record a function name means', () => {
  const described = (module: string, name: string, description: string) => ({
    ...restTool(module, name, `${tools.url}/tools/${name}?group=hardening-render`),
    description,
  })
  let db: TestRedis

  beforeAll(async () => {
    db = await catalogue(3, {
      // Both are a_b_c: the first key in sorted order (':' before '_') keeps the name.
      'shenma:tools:a:b_c': described('a', 'b_c', 'first'),
      'shenma:tools:a_b:c': described('a_b', 'c', 'second'),
      // The first is invalid: the second keeps the name.
      'shenma:tools:p:q_r': { name: 'q_r' },
      'shenma:tools:p_q:r': described('p_q', 'r', 'valid'),
      // Only invalid: a 404 saying where and why.
      'shenma:tools:bad:one': { name: 'one' },
      // More keys than one lookup reads (2^9 > MAX_TOOL_KEYS): found in the tool list.
      'shenma:tools:n:a_b_c_d_e_f_g_h_i': described('n', 'a_b_c_d_e_f_g_h_i', 'listed'),
      'shenma:templates:t:long': { prompt: '{{(n_a_b_c_d_e_f_g_h_i "w").query.x}}' },
      'shenma:templates:t:labeled': { prompt: '{{(bulk_t0001 "v").path}}' },
      'shenma:labels:feat:tools:bulk:t0001': restTool('bulk', 't0001', `${tools.url}/tools/own?group=hardening-render`),
      'shenma:labels:gone:tools:bulk:t0001': '{"$shenma":"tombstone"}',
    })
  })

  const tool = async (id: string, query = '') => (await call(db.env, 'GET', `/api/tools/${id}${query}`)).body

  it('keeps the rule of the tool list: the first valid key in sorted order', async () => {
    expect(await tool('a_b_c')).toMatchObject({ data: { description: 'first' } })
    expect(await tool('p_q_r')).toMatchObject({ data: { description: 'valid' } })
    const list = (await call(db.env, 'GET', '/api/tools')).body as { data: { id: string; description: string }[] }
    expect(list.data.filter((t) => t.id === 'a_b_c' || t.id === 'p_q_r').map((t) => t.description)).toEqual([
      'first',
      'valid',
    ])
  })

  it('answers a name whose only record is invalid 404, saying where it is stored and why', async () => {
    const body = await tool('bad_one')
    expect(body).toMatchObject({ code: 'NOT_FOUND' })
    expect(body.message).toMatch(/is stored at shenma:tools:bad:one but fails its schema/)
  })

  it('finds a name of more keys than one lookup reads in the tool list', async () => {
    expect(await tool('n_a_b_c_d_e_f_g_h_i')).toMatchObject({ data: { description: 'listed' } })
    const { body } = await call(db.env, 'POST', '/api/prompts/t.long/render', { args: {} })
    expect(body).toMatchObject({ rendered_prompt: 'w' })
  })

  it("reads a label's own tool record over the base's, and none where the label deleted it", async () => {
    const path = async (query: string) => (await render('t.labeled', {}, query)(db.env)).body
    expect(await path('')).toMatchObject({ rendered_prompt: '/tools/t0001' })
    expect(await path('?label=feat')).toMatchObject({ rendered_prompt: '/tools/own' })
    const gone = await path('?label=gone')
    expect(gone).toMatchObject({ code: 'TEMPLATE_SYNTAX' })
    expect(gone.message).toMatch(/function "bulk_t0001" not defined/)
  })
})
