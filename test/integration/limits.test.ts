// Hostile requests and hostile records at the HTTP layer: ids checked before
// Redis, bodies bounded in size and depth, stored records bounded in depth,
// configuration errors said plainly, CORS, and every fault of the client a
// 4xx. After each hostile request the next ordinary one, in the same
// isolate, answers 200.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { Env } from '../../lib/env'
import { call, fetchWorker, freshRedis, get, logged } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'

let db: TestRedis

/** `[[[...]]]`, `depth` arrays deep, as JSON text. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.mset({
    'shenma:templates:team:hello': {
      prompt: 'Hello {{.args.name}}',
      parameters: { name: { type: 'string' } },
    },
    'shenma:templates:team:echo': { prompt: '{{.args}}' },
    'shenma:templates:team:tags': {
      prompt: '{{len .args.tags}}',
      parameters: { tags: { type: 'array', items: { type: 'string' } } },
    },
    'shenma:templates:team:vscode': { prompt: '{{.vscode}}' },
    'shenma:environs:vscode:lang': 'go',
  })
})
afterAll(() => db.release())

const render = (env: Env, id: string, body: unknown = { args: { name: 'Ada' } }) =>
  call(env, 'POST', `/api/prompts/${id}/render`, body)

/** The ordinary request that must still answer 200 after a hostile one. */
async function expectOrdinaryRender(env: Env = db.env): Promise<void> {
  const { status, body } = await render(env, 'team.hello')
  expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: 'Hello Ada' })
}

const RENDER = '/api/prompts/team.hello/render'
const JSON_TYPE = { 'content-type': 'application/json' }

/** A render whose body is `stream`, sent without a Content-Length. */
const postStream = (body: ReadableStream<Uint8Array>) =>
  fetchWorker(db.env, RENDER, { method: 'POST', headers: JSON_TYPE, body, duplex: 'half' } as RequestInit)

function expectError(answer: Answer, status: number, code: string, message?: RegExp | string): void {
  expect({ status: answer.status, code: answer.body.code }).toEqual({ status, code })
  if (message !== undefined) expect(answer.body.message).toMatch(message)
}

describe('ids are checked before Redis', () => {
  const LONG_PROMPT = `${'a.'.repeat(4000)}a`
  const cases: [label: string, method: string, path: string, message: RegExp][] = [
    ['an 8 KB prompt id', 'GET', `/api/prompts/${LONG_PROMPT}`, /prompt_id: must be at most 256 characters/],
    ['an 8 KB prompt id, rendered', 'POST', `/api/prompts/${LONG_PROMPT}/render`, /at most 256 characters/],
    ['an 8 KB prompt id, chatted', 'POST', `/api/prompts/${LONG_PROMPT}/chat`, /at most 256 characters/],
    ['a prompt id of 257 characters', 'GET', `/api/prompts/${'p'.repeat(257)}`, /at most 256 characters/],
    ['a prompt id of 9 dots', 'GET', '/api/prompts/a.b.c.d.e.f.g.h.i.j', /at most 8 dots/],
    ['a prompt id with an empty segment', 'GET', '/api/prompts/a..b', /no segment empty/],
    ['a prompt id ending in a dot', 'GET', '/api/prompts/a.', /no segment empty/],
    ['a prompt id with a colon', 'GET', '/api/prompts/a:b', /no ':'/],
    ['an extension id of 257 characters', 'GET', `/api/extensions/${'e'.repeat(257)}`, /at most 256 characters/],
    ['an environ id of 33 segments', 'GET', `/api/environs/${'v.'.repeat(32)}v`, /at most 32 segments/],
    ['an environ id of 257 characters', 'GET', `/api/environs/${'v'.repeat(257)}`, /at most 256 characters/],
    ['a tool id of 257 characters', 'GET', `/api/tools/${'t'.repeat(257)}`, /at most 256 characters/],
  ]
  for (const [label, method, path, message] of cases) {
    it(`answers 400 to ${label} without a Redis request, then 200 to an ordinary render`, async () => {
      await db.resetRequests()
      const answer = await call(db.env, method, path, method === 'POST' ? { model: 'm' } : undefined)
      expectError(answer, 400, 'BAD_REQUEST', message)
      expect(String(answer.body.message).length).toBeLessThan(300)
      expect(await db.requests()).toBe(0)
      await expectOrdinaryRender()
    })
  }

  it('takes ids at the limits: a prompt id of 256 characters and 8 dots reads its 9 keys in one request', async () => {
    const id = `${'p'.repeat(240)}.b.c.d.e.f.g.h.i`
    expect(id).toHaveLength(256)
    await db.resetRequests()
    expectError(await get(db.env, `/api/prompts/${id}`), 404, 'NOT_FOUND')
    expect(await db.requests()).toBe(1)
    const environ = `${'v.'.repeat(31)}v`
    expectError(await get(db.env, `/api/environs/${environ}`), 404, 'NOT_FOUND')
  })

  it('answers unicode ids and undecodable escapes as unknown ids, not as faults', async () => {
    for (const path of [
      `/api/prompts/${encodeURIComponent('提示.名前')}`,
      '/api/prompts/%E4%B8.x',
      `/api/environs/${encodeURIComponent('vscode.🙂')}`,
      '/api/extensions/%00',
    ]) {
      const answer = await get(db.env, path)
      expect(answer.status, path).toBe(404)
    }
    await expectOrdinaryRender()
  })
})

describe('request bodies', () => {
  it('answers 413 PAYLOAD_TOO_LARGE to a body over MAX_BODY_BYTES that says its length, naming the limit', async () => {
    const body = JSON.stringify({ args: { name: 'x'.repeat(2 * 1024 * 1024) } })
    const res = await fetchWorker(db.env, RENDER, {
      method: 'POST',
      headers: { ...JSON_TYPE, 'content-length': String(body.length) },
      body,
    })
    expect(res.status).toBe(413)
    expect(await res.json()).toEqual({
      status: 'error',
      code: 'PAYLOAD_TOO_LARGE',
      message: 'the body is larger than MAX_BODY_BYTES (1048576 bytes)',
    })
    await expectOrdinaryRender()
  })

  it('stops reading a streamed body without a length as soon as it passes the limit', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    const chunks = 320 // 20 MiB
    let pulled = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++
        if (pulled === 1) controller.enqueue(new TextEncoder().encode('{"args": {"name": "'))
        else if (pulled <= chunks) controller.enqueue(chunk)
        else {
          controller.enqueue(new TextEncoder().encode('"}}'))
          controller.close()
        }
      },
    })
    const res = await postStream(stream)
    expect(res.status).toBe(413)
    expect(((await res.json()) as { code: string }).code).toBe('PAYLOAD_TOO_LARGE')
    // 1 MiB is 16 chunks of 64 KiB: the stream is read a little past the limit, never to its end.
    expect(pulled).toBeLessThanOrEqual(20)
    await expectOrdinaryRender()
  })

  it('takes a streamed body under the limit', async () => {
    const parts = ['{"args": ', '{"name": ', '"Ada"}}'].map((p) => new TextEncoder().encode(p))
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const part = parts.shift()
        if (part) controller.enqueue(part)
        else controller.close()
      },
    })
    const res = await postStream(stream)
    expect(res.status).toBe(200)
    expect(((await res.json()) as { rendered_prompt: string }).rendered_prompt).toBe('Hello Ada')
  })

  it('takes its limit from MAX_BODY_BYTES, on /chat as on /render', async () => {
    const env = { ...db.env, MAX_BODY_BYTES: '64' }
    const small = await render(env, 'team.hello')
    expect(small.status).toBe(200)
    const large = { args: { name: 'Ada'.repeat(30) } }
    expectError(await render(env, 'team.hello', large), 413, 'PAYLOAD_TOO_LARGE', /MAX_BODY_BYTES \(64 bytes\)/)
    const chat = await call(env, 'POST', '/api/prompts/team.hello/chat', { model: 'm', ...large })
    expectError(chat, 413, 'PAYLOAD_TOO_LARGE')
    await expectOrdinaryRender(env)
  })

  it('parses a body once', async () => {
    const text = JSON.stringify({ args: { name: 'Once' } })
    const parse = vi.spyOn(JSON, 'parse')
    try {
      const answer = await call(db.env, 'POST', RENDER, undefined, text)
      expect(answer.status).toBe(200)
      expect(parse.mock.calls.filter(([parsed]) => parsed === text)).toHaveLength(1)
    } finally {
      parse.mockRestore()
    }
  })
})

describe('depth', () => {
  it('answers 400 to args nested past 100 levels, naming them, before anything recurses into them', async () => {
    const raw = `{"args": {"name": "Ada", "deep": ${nested(5000)}}}`
    const answer = await call(db.env, 'POST', '/api/prompts/team.echo/render', undefined, raw)
    expectError(answer, 400, 'BAD_REQUEST', 'the body is nested deeper than 100 levels (in args)')
    const chat = await call(db.env, 'POST', '/api/prompts/team.echo/chat', undefined, raw)
    expectError(chat, 400, 'BAD_REQUEST', /nested deeper than 100 levels/)
    await expectOrdinaryRender()
  })

  it('takes a body exactly 100 levels deep', async () => {
    // The body is level 1 and args level 2: 98 arrays in args make 100.
    const raw = `{"args": {"name": "Ada", "deep": ${nested(98)}}}`
    expect((await call(db.env, 'POST', '/api/prompts/team.hello/render', undefined, raw)).status).toBe(200)
    const deeper = `{"args": {"name": "Ada", "deep": ${nested(99)}}}`
    expect((await call(db.env, 'POST', '/api/prompts/team.hello/render', undefined, deeper)).status).toBe(400)
  })

  it('skips a stored environ nested past 100 levels, in its listing, by id, and in a render that reads it', async () => {
    await db.redis.set('shenma:environs:vscode:deep', nested(100_000))
    const reason = 'is nested deeper than 100 levels'
    const one = await get(db.env, '/api/environs/vscode.deep')
    expectError(one, 404, 'NOT_FOUND', `environ 'vscode.deep' is stored at shenma:environs:vscode:deep but ${reason}`)
    const prefix = await get(db.env, '/api/environs/vscode')
    expect(prefix.status).toBe(200)
    expect(prefix.body.data).toEqual({ lang: 'go' })
    expect(prefix.body.skipped).toEqual([{ key: 'shenma:environs:vscode:deep', reason }])
    const rendered = await render(db.env, 'team.vscode', {})
    expect(rendered.status).toBe(200)
    expect(rendered.body.rendered_prompt).toBe('map[lang:go]')
    expect(rendered.body.warnings).toEqual([expect.objectContaining({ code: 'RECORD_SKIPPED', reason })])
    await db.redis.del('shenma:environs:vscode:deep')
    await expectOrdinaryRender()
  })

  it('skips a stored prompt nested past 100 levels instead of failing the listing', async () => {
    await db.redis.set('shenma:templates:team:deep', `{"prompt": "x", "returns": ${nested(100_000)}}`)
    const list = await get(db.env, '/api/prompts')
    expect(list.status).toBe(200)
    expect(list.body.skipped).toEqual([
      { key: 'shenma:templates:team:deep', reason: 'is nested deeper than 100 levels' },
    ])
    expectError(await get(db.env, '/api/prompts/team.deep'), 404, 'NOT_FOUND', /nested deeper than 100 levels/)
    await db.redis.del('shenma:templates:team:deep')
    await expectOrdinaryRender()
  })

  it('skips an environ key of more than 32 segments, which no id can name', async () => {
    const key = `shenma:environs:far:${'a:'.repeat(40)}z`
    await db.redis.set(key, 1)
    const far = await get(db.env, '/api/environs/far')
    expectError(far, 404, 'NOT_FOUND')
    const list = await get(db.env, '/api/environs')
    expect(list.body.skipped).toEqual([{ key, reason: 'has more than 32 path segments, so no id can name it' }])
    await db.redis.del(key)
  })
})

describe('args the validator cannot take whole', () => {
  it('100,000 items of the wrong type are 400 INVALID_ARGS, not a stack overflow', async () => {
    const tags = Array.from({ length: 100_000 }, (_, i) => i)
    const answer = await render(db.env, 'team.tags', { args: { tags } })
    expectError(answer, 400, 'INVALID_ARGS', /^invalid args: tags /)
    await expectOrdinaryRender()
  })
})

describe('configuration errors', () => {
  it('answers 503 MISCONFIGURED naming a malformed RENDER_TIMEOUT_MS, and logs the setting', async () => {
    const env = { ...db.env, RENDER_TIMEOUT_MS: 'abc' }
    const { result, lines } = await logged(() => render(env, 'team.hello'))
    expect({ status: result.status, body: result.body }).toEqual({
      status: 503,
      body: {
        status: 'error',
        code: 'MISCONFIGURED',
        message: "RENDER_TIMEOUT_MS must be a positive integer, got 'abc'",
        setting: 'RENDER_TIMEOUT_MS',
      },
    })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ status: 503, error: { code: 'MISCONFIGURED', setting: 'RENDER_TIMEOUT_MS' } })
    await expectOrdinaryRender()
  })

  it('answers 503 MISCONFIGURED naming a malformed MAX_BODY_BYTES', async () => {
    const answer = await render({ ...db.env, MAX_BODY_BYTES: '1MB' }, 'team.hello')
    expectError(answer, 503, 'MISCONFIGURED', "MAX_BODY_BYTES must be a positive integer, got '1MB'")
  })

  it('answers a chat with no provider configured 503 MISCONFIGURED naming the setting', async () => {
    const chat = (env: Env) => call(env, 'POST', '/api/prompts/team.hello/chat', { model: 'm', args: { name: 'A' } })
    const none = await chat(db.env)
    expectError(none, 503, 'MISCONFIGURED', /^LLM_BASE_URL is not set/)
    expect(none.body.setting).toBe('LLM_BASE_URL')

    const broken = await chat({ ...db.env, LLM_ROUTES: '{"m": ' })
    expectError(broken, 503, 'MISCONFIGURED', 'LLM_ROUTES is not valid JSON')
    expect(broken.body.setting).toBe('LLM_ROUTES')

    const routes = JSON.stringify({ m: { baseURL: 'http://127.0.0.1:1/v1', apiKeyVar: 'M_KEY' } })
    const keyless = await chat({ ...db.env, LLM_ROUTES: routes })
    expectError(keyless, 503, 'MISCONFIGURED', 'M_KEY is not set: LLM_ROUTES names it as the key of model m')
    expect(keyless.body.setting).toBe('M_KEY')
    await expectOrdinaryRender()
  })
})

describe('CORS', () => {
  const ORIGIN = 'https://app.example'
  const TOKEN = 'cors-secret'
  const cors = (origins: string | undefined): Env => ({ ...db.env, API_TOKEN: TOKEN, CORS_ORIGINS: origins })

  it('answers a preflight before authentication, allowing Authorization and Content-Type, with its log line', async () => {
    const { result: res, lines } = await logged(() =>
      fetchWorker(cors(`${ORIGIN}, https://other.example`), '/api/prompts/team.hello/render', {
        method: 'OPTIONS',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      }),
    )
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(res.headers.get('access-control-allow-methods')?.split(',')).toContain('POST')
    const allowed = res.headers.get('access-control-allow-headers')?.toLowerCase().split(',') ?? []
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type']))
    expect(lines).toEqual([expect.objectContaining({ method: 'OPTIONS', status: 204 })])
  })

  it("gives a listed origin's answers Access-Control-Allow-Origin and exposes X-Request-Id and Server-Timing", async () => {
    const headers = { origin: ORIGIN, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }
    const res = await fetchWorker(cors(ORIGIN), '/api/prompts/team.hello/render', {
      method: 'POST',
      headers,
      body: JSON.stringify({ args: { name: 'Ada' } }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    const exposed = res.headers.get('access-control-expose-headers')?.toLowerCase().split(',') ?? []
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'server-timing']))
    expect(res.headers.get('vary')).toMatch(/origin/i)
    // An error answer too, so that the page can read why.
    const refused = await fetchWorker(cors(ORIGIN), '/api/extensions', { headers: { origin: ORIGIN } })
    expect(refused.status).toBe(401)
    expect(refused.headers.get('access-control-allow-origin')).toBe(ORIGIN)
  })

  it('reads origins as browsers send them, and says plainly when an entry is none', async () => {
    const headers = { origin: ORIGIN, authorization: `Bearer ${TOKEN}` }
    const written = await fetchWorker(cors('HTTPS://App.Example/'), '/api/extensions', { headers })
    expect(written.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    const wrong = await call(cors('app.example'), 'GET', '/api/extensions')
    expectError(
      wrong,
      503,
      'MISCONFIGURED',
      "CORS_ORIGINS must list origins like https://app.example, got 'app.example'",
    )
    expect(wrong.body.setting).toBe('CORS_ORIGINS')
  })

  it('gives an origin not listed no Access-Control-Allow-Origin, and `*` every origin', async () => {
    const headers = { origin: 'https://evil.example', authorization: `Bearer ${TOKEN}` }
    const unlisted = await fetchWorker(cors(ORIGIN), '/api/extensions', { headers })
    expect(unlisted.status).toBe(200)
    expect(unlisted.headers.get('access-control-allow-origin')).toBeNull()
    const preflight = await fetchWorker(cors(ORIGIN), '/api/extensions', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    const any = await fetchWorker(cors('*'), '/api/extensions', { headers })
    expect(any.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('sends no CORS headers at all when CORS_ORIGINS is unset', async () => {
    const res = await fetchWorker(cors(undefined), '/api/extensions', {
      headers: { origin: ORIGIN, authorization: `Bearer ${TOKEN}` },
    })
    expect(res.status).toBe(200)
    expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([])
    const preflight = await fetchWorker(cors(undefined), '/health', {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET' },
    })
    expect(preflight.status).toBe(405)
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('whatever a client sends wrong is a 4xx', () => {
  it('answers a query string of 100,000 repeated parameters', async () => {
    const query = 'supports=chat&'.repeat(100_000)
    const answer = await get(db.env, `/api/prompts?${query}`)
    expect(answer.status).toBe(200)
    await expectOrdinaryRender()
  })

  it('answers a path of 100 KB with a short log line', async () => {
    const { result, lines } = await logged(async () => [
      await get(db.env, `/api/prompts/${'a'.repeat(100_000)}`),
      await get(db.env, `/nowhere/${'a'.repeat(100_000)}`),
    ])
    expect(result.map((r) => r.status)).toEqual([400, 404])
    expect(lines).toHaveLength(2)
    for (const line of lines) expect(JSON.stringify(line).length).toBeLessThan(4096)
    await expectOrdinaryRender()
  })

  it('answers a header of 1 MB, an X-Request-Id of 1 MB and an Authorization of 1 MB', async () => {
    const huge = 'x'.repeat(1024 * 1024)
    const plain = await fetchWorker(db.env, '/api/extensions', { headers: { 'x-whatever': huge } })
    expect(plain.status).toBe(200)
    const id = await fetchWorker(db.env, '/api/extensions', { headers: { 'x-request-id': huge } })
    expect(id.status).toBe(200)
    expect(id.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const auth = await fetchWorker({ ...db.env, API_TOKEN: 't' }, '/api/extensions', {
      headers: { authorization: `Bearer ${huge}` },
    })
    expect(auth.status).toBe(401)
    await expectOrdinaryRender()
  })

  it('answers args that are not an object, and a body that is not one, 400', async () => {
    for (const raw of ['{"args": []}', '{"args": "x"}', '{"args": null}', '[]', '"args"', '12']) {
      const answer = await call(db.env, 'POST', '/api/prompts/team.hello/render', undefined, raw)
      expectError(answer, 400, 'BAD_REQUEST')
    }
    await expectOrdinaryRender()
  })
})
