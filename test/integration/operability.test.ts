// What operators rely on: the bearer token, the one log line per request and
// its id, /health, and how bodies that are not JSON are refused. Against a
// real Redis and a real tool server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import evaluator from '../../examples/extensions/evaluator.json'
import { call, fetchWorker, freshRedis, logged, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'

const tools = toolServer()
let db: TestRedis

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.mset({
    'shenma:extensions:evaluator': evaluator,
    'shenma:environs:vscode:programming_language': 'go',
    'shenma:tools:ops:echo': {
      name: 'echo',
      module: 'ops',
      type: 'restful',
      restful: { url: `${tools.url}/tools/echo?group=ops`, method: 'GET' },
      description: 'echo',
      parameters: { q: { type: 'string' } },
    },
    'shenma:templates:ops:greet': {
      prompt: 'Hello {{.args.name}} in {{.vscode.programming_language}} {{(ops_echo "x").path}}',
      parameters: [{ name: 'name', type: 'string', required: true }],
    },
  })
})
afterAll(() => db.release())

const SECRET = 'correct horse battery staple'
const guarded = () => ({ ...db.env, API_TOKEN: SECRET })

describe('API_TOKEN', () => {
  it('answers 401 without a token or with a wrong one, and 200 with the right one', async () => {
    const none = await call(guarded(), 'GET', '/api/extensions')
    expect(none.status).toBe(401)
    expect(none.body).toMatchObject({ status: 'error', code: 'UNAUTHORIZED', message: /no Authorization header/ })
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="ai-prompt-shell"')

    for (const authorization of [`Bearer ${SECRET}x`, 'Bearer short', `Basic ${btoa(`u:${SECRET}`)}`, SECRET]) {
      const res = await fetchWorker(guarded(), '/api/extensions', { headers: { authorization } })
      expect(res.status, authorization).toBe(401)
      expect(((await res.json()) as { code: string }).code).toBe('UNAUTHORIZED')
    }

    const right = await fetchWorker(guarded(), '/api/extensions', { headers: { authorization: `Bearer ${SECRET}` } })
    expect(right.status).toBe(200)
    expect(((await right.json()) as { data: { id: string }[] }).data.map((e) => e.id)).toEqual(['evaluator'])
  })

  it('guards every /api route, renders included, and leaves /health, /openapi.json and /docs open', async () => {
    const render = await call(guarded(), 'POST', '/api/prompts/ops.greet/render', { args: { name: 'a' } })
    expect(render.status).toBe(401)
    expect((await call(guarded(), 'GET', '/api/nowhere')).status).toBe(401)
    for (const path of ['/health', '/openapi.json', '/docs']) {
      expect((await fetchWorker(guarded(), path)).status, path).toBe(200)
    }
  })

  it('unset, leaves the API open and says so in the first log line of the isolate only', async () => {
    const { lines } = await logged(async () => {
      for (let i = 0; i < 3; i++) expect((await call(db.env, 'GET', '/api/extensions')).status).toBe(200)
    })
    const notices = lines.flatMap((l) => (l.events as { msg: string }[] | undefined) ?? [])
    expect(notices.filter((e) => /^API_TOKEN is unset/.test(e.msg))).toHaveLength(1)
  })
})

describe('the log', () => {
  it('has exactly one JSON line per request, with its id, route, status, duration, prompt, cache and tool calls', async () => {
    await tools.reset('ops')
    const { result: res, lines } = await logged(() =>
      fetchWorker(db.env, '/api/prompts/ops.greet/render', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ args: { name: 'Ada Lovelace' } }),
      }),
    )
    expect(res.status).toBe(200)
    const id = res.headers.get('x-request-id')
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(lines).toHaveLength(1)
    // The isolate's first line may also carry the notice that API_TOKEN is unset.
    const { events: _, ...line } = lines[0] as Record<string, unknown>
    expect(line).toEqual({
      level: 'info',
      msg: 'request',
      request_id: id,
      method: 'POST',
      path: '/api/prompts/ops.greet/render',
      route: '/api/prompts/:prompt_id/render',
      status: 200,
      duration_ms: expect.any(Number),
      prompt_id: 'ops.greet',
      prompt_version: null,
      cache: { hits: expect.any(Number), misses: expect.any(Number), joined: expect.any(Number) },
      tools: [{ tool: 'ops_echo', outcome: 'ok', ms: expect.any(Number) }],
    })
    const { hits, misses } = lines[0]?.cache as { hits: number; misses: number }
    expect(hits + misses).toBeGreaterThan(0)
    // Neither the args nor the rendered prompt.
    expect(JSON.stringify(lines)).not.toMatch(/Ada|Lovelace|Hello/)
  })

  it('keeps a plausible X-Request-Id of the caller and replaces anything else', async () => {
    const mine = await fetchWorker(db.env, '/health', { headers: { 'x-request-id': 'trace-42.a:b' } })
    expect(mine.headers.get('x-request-id')).toBe('trace-42.a:b')
    const odd = await fetchWorker(db.env, '/health', { headers: { 'x-request-id': 'no spaces <allowed>' } })
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('writes one line for a failure too: the error code, without a sensitive message', async () => {
    await db.redis.set('shenma:templates:ops:broken', { prompt: '{{index .args.list 5}}' })
    const { result, lines } = await logged(() =>
      call(db.env, 'POST', '/api/prompts/ops.broken/render', { args: { list: ['secret-value'] } }),
    )
    expect(result.status).toBe(500)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      level: 'error',
      status: 500,
      route: '/api/prompts/:prompt_id/render',
      error: { code: 'RENDER_FAILED', template: 'ops.broken', line: 1 },
    })
    expect(JSON.stringify(lines)).not.toContain('secret-value')
  })

  it('writes one line for a request no route takes, inside /api or not', async () => {
    for (const [method, path, status] of [
      ['DELETE', '/api/extensions', 405],
      ['POST', '/health', 405],
      ['GET', '/nowhere', 404],
    ] as const) {
      const { result, lines } = await logged(() => fetchWorker(db.env, path, { method }))
      expect(result.status, path).toBe(status)
      expect(result.headers.get('x-request-id'), path).toBeTruthy()
      expect(lines, path).toEqual([
        expect.objectContaining({ request_id: result.headers.get('x-request-id'), status, route: null }),
      ])
    }
  })

  it('writes a client error as its code and place, never what the client sent', async () => {
    const { lines } = await logged(async () => {
      await call(db.env, 'POST', '/api/prompts/ops.greet/render', { args: { name: 12345678 } })
      await call(db.env, 'POST', '/api/prompts/ops.greet/render', undefined, '{"args": {"name": "hunter2"')
    })
    expect(lines.map((l) => l.error)).toEqual([{ code: 'INVALID_ARGS' }, { code: 'BAD_REQUEST' }])
    expect(JSON.stringify(lines)).not.toMatch(/12345678|hunter2/)
  })

  it('carries the args and the rendered prompt when LOG_DEBUG asks for them', async () => {
    const { lines } = await logged(() =>
      call({ ...db.env, LOG_DEBUG: 'true' }, 'POST', '/api/prompts/ops.greet/render', { args: { name: 'Ada' } }),
    )
    expect(lines).toHaveLength(1)
    expect(lines[0]?.debug).toEqual({
      args: { name: 'Ada' },
      rendered_prompt: 'Hello Ada in go /tools/echo',
    })
  })
})

describe('/health', () => {
  it('names the version and the store, without a Redis request', async () => {
    await db.resetRequests()
    const { status, body } = await call(db.env, 'GET', '/health')
    expect(status).toBe(200)
    expect(body.data).toEqual({ service: 'ai-prompt-shell', version: expect.any(String), store: 'upstash', llm: false })
    expect(await db.requests()).toBe(0)
  })

  it('says whether chats have a provider, and nothing more of it', async () => {
    const direct = await call({ ...db.env, LLM_BASE_URL: 'http://127.0.0.1:9/v1' }, 'GET', '/health')
    expect(direct.body.data).toMatchObject({ llm: true })
    const routed = await call({ ...db.env, LLM_ROUTES: '{}' }, 'GET', '/health')
    expect(routed.body.data).toMatchObject({ llm: true })
    expect(JSON.stringify(direct.body)).not.toContain('127.0.0.1')
  })
})

describe('bodies', () => {
  it('answers 415 to a body that is not sent as JSON, and 400 to JSON that does not parse', async () => {
    const form = await fetchWorker(db.env, '/api/prompts/ops.greet/render', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Ada',
    })
    expect(form.status).toBe(415)
    expect(await form.json()).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: /application\/json; it was sent as application\/x-www-form-urlencoded/,
    })
    const broken = await call(db.env, 'POST', '/api/prompts/ops.greet/render', undefined, '{"args": ')
    expect(broken.status).toBe(400)
    expect(broken.body).toMatchObject({ code: 'BAD_REQUEST', message: /^the body is not valid JSON/ })
  })

  it('takes an empty body as {}, with or without a JSON Content-Type', async () => {
    await db.redis.set('shenma:templates:ops:plain', { prompt: 'plain' })
    for (const headers of [{}, { 'content-type': 'application/json' }] as Record<string, string>[]) {
      const res = await fetchWorker(db.env, '/api/prompts/ops.plain/render', { method: 'POST', headers })
      expect(res.status, JSON.stringify(headers)).toBe(200)
      expect(await res.json()).toEqual({ status: 'success', rendered_prompt: 'plain' })
    }
  })
})
