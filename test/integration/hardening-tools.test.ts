// Issue 27, rows 1 and 4, inside workerd against the real tool server: a
// REST tool's request is built once and bounded before it is built, and a
// template calling a tool in a range with a big map pays for each copy of
// it in its step budget, and for a map it passes again not at all.
import { beforeAll, describe, expect, it } from 'vitest'
import { call, freshRedis, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { restTool } from '../support/records'
import type { Env } from '../../lib/env'

const tools = toolServer()
let db: TestRedis

/** 40,000 parameters of 14 characters or so: the row's 578 KB body. */
const MANY = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`p${i}`, `v${i}`]))

/** A map of 100 KB, about 7,000 keys. */
const BIG = Object.fromEntries(Array.from({ length: 7_000 }, (_, i) => [`key${i}`, `value-${i}`]))

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.mset({
    'shenma:tools:wide:open': restTool('wide', 'open', `${tools.url}/tools/open?group=wide`, {
      parameters: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: true },
    }),
    'shenma:tools:wide:declared': restTool('wide', 'declared', `${tools.url}/tools/declared?group=wide`, {
      parameters: { q: { type: 'string' } },
    }),
    'shenma:tools:wide:posted': restTool('wide', 'posted', `${tools.url}/tools/posted/{id}?group=wide`, {
      parameters: [{ name: 'q', type: 'string' }],
      method: 'POST',
    }),
    'shenma:tools:strict:count': restTool('strict', 'count', `${tools.url}/tools/count?group=strict`, {
      parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    }),
    'shenma:tools:strict:open': restTool('strict', 'open', `${tools.url}/tools/open?group=strict`, {
      parameters: {
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
        additionalProperties: true,
      },
    }),
  })
})

async function render(name: string, prompt: string, args: Record<string, unknown>, env: Env = {}) {
  await db.redis.set(`shenma:templates:team:${name}`, { prompt })
  const settings = { ...db.env, RENDER_TIMEOUT_MS: '10000', TOOL_TIMEOUT_MS: '2000', ...env }
  return call(settings, 'POST', `/api/prompts/team.${name}/render`, { args })
}

describe('a REST tool called with 40,000 parameters it does not declare', () => {
  it('is refused before any request when its schema takes them: the URL would pass 8 KiB', async () => {
    await tools.reset('wide')
    const { status, body } = await render('open', '[{{wide_open .args.m}}]', { m: { q: 'x', ...MANY } })
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('[]')
    expect(body.warnings).toEqual([
      { code: 'TOOL_FAILED', tool: 'wide_open', message: 'its URL would be longer than 8192 characters' },
    ])
    expect((await tools.stats('wide')).calls).toBe(0)
  })

  it('sends only what it declares, as a query for GET and as a body for POST (a placeholder is declared)', async () => {
    await tools.reset('wide')
    const { status, body } = await render(
      'declared',
      '{{(wide_declared .args.m).query.q}} {{(wide_posted .args.m).method}}',
      { m: { q: 'x', id: '7', ...MANY } },
    )
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('x POST')
    expect((await tools.stats('wide')).requests.sort()).toEqual([
      'GET /tools/declared?q=x',
      'POST /tools/posted/7 {"q":"x"}',
    ])
  })
})

describe('a tool called in a range with a 100 KB map that fails its validation', () => {
  it('copies the map once: 2,025 calls with the same map fit a budget of 85 copies', async () => {
    const { status, body } = await render(
      'same',
      '{{range .args.list}}{{range $.args.list}}{{strict_count $.args.m}}{{end}}{{end}}.',
      { m: BIG, list: Array.from({ length: 45 }, (_, i) => i) },
      // The budget is 5,000 steps a ms of RENDER_TIMEOUT_MS: 10 million, about 85 copies of the map.
      { RENDER_TIMEOUT_MS: '2000' },
    )
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('.')
    expect(body.warnings).toEqual([
      { code: 'TOOL_FAILED', tool: 'strict_count', message: expect.stringMatching(/^invalid arguments: /) },
    ])
    expect((await tools.stats('strict')).calls).toBe(0)
  })

  it('pays for a copy at each call when the map is made anew for a tool that sends it: the step budget ends the render', async () => {
    const { status, body } = await render(
      'wrapped',
      '{{range .args.list}}{{range $.args.list}}{{strict_open (dict "m" $.args.m)}}{{end}}{{end}}.',
      { m: BIG, list: Array.from({ length: 45 }, (_, i) => i) },
      { RENDER_TIMEOUT_MS: '2000' },
    )
    // The budget is as long as the deadline: whichever ends it, this is the answer.
    expect({ status, code: body.code }).toEqual({ status: 503, code: 'RENDER_TIMEOUT' })
  })

  it('copies nothing the tool would not send: the map made anew for a closed schema is dropped first', async () => {
    await tools.reset('strict')
    const { status, body } = await render(
      'wrapped_closed',
      '{{range .args.list}}{{range $.args.list}}{{strict_count (dict "m" $.args.m)}}{{end}}{{end}}.',
      { m: BIG, list: Array.from({ length: 45 }, (_, i) => i) },
      { RENDER_TIMEOUT_MS: '2000' },
    )
    expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: '.' })
    expect((await tools.stats('strict')).calls).toBe(0)
  })
})
