import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { startLlmServer, OVERLOADED_MESSAGE, RATE_LIMIT_MESSAGE } from '../support/llm-server.js'
import type { LlmRequestRecord, LlmServer, ScriptedAnswer } from '../support/llm-server.js'

/** What the three formats share: one model's behaviour, count, script and record, whichever format asks. */
describe('the LLM server across its formats', () => {
  let server: LlmServer

  beforeAll(async () => {
    server = await startLlmServer()
  })
  afterAll(async () => {
    await server?.stop()
  })

  type Format = 'openai' | 'anthropic' | 'gemini'
  /** The same question in each format's own request. */
  const ask = (format: Format, model: string, text = 'hi'): Promise<Response> => {
    const json = { 'content-type': 'application/json' }
    if (format === 'openai') {
      return fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { ...json, authorization: 'Bearer test-key' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: text }] }),
      })
    }
    if (format === 'anthropic') {
      return fetch(`${server.origin}/v1/messages`, {
        method: 'POST',
        headers: { ...json, 'x-api-key': 'test-key', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: text }] }),
      })
    }
    return fetch(`${server.origin}/v1beta/models/${encodeURIComponent(model)}:generateContent`, {
      method: 'POST',
      headers: { ...json, 'x-goog-api-key': 'test-key' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
    })
  }
  /** An answer's text, read the way each format carries it. */
  const textOf = async (res: Response): Promise<string> => {
    expect(res.status).toBe(200)
    const body = (await res.json()) as {
      choices?: { message: { content: string } }[]
      content?: { text: string }[]
      candidates?: { content: { parts: { text: string }[] } }[]
    }
    return (
      body.choices?.[0]?.message.content ??
      body.content?.[0]?.text ??
      body.candidates?.[0]?.content.parts[0]?.text ??
      ''
    )
  }
  const admin = (path: string, model: string, method = 'GET', body?: unknown) =>
    fetch(`${server.origin}${path}?model=${encodeURIComponent(model)}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  const requests = async (model: string): Promise<LlmRequestRecord[]> =>
    ((await (await admin('/__requests', model)).json()) as { requests: LlmRequestRecord[] }).requests
  const reset = async (model: string) => expect((await admin('/__reset', model, 'POST')).status).toBe(200)

  it('serves every format on one origin', () => {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(server.url).toBe(`${server.origin}/v1`)
  })

  it("records one model's requests in arrival order, each with its native body and headers", async () => {
    await reset('shared')
    expect(await textOf(await ask('openai', 'shared', 'one'))).toBe('echo: one')
    expect(await textOf(await ask('anthropic', 'shared', 'two'))).toBe('echo: two')
    expect(await textOf(await ask('gemini', 'shared', 'three'))).toBe('echo: three')
    const recorded = await requests('shared')
    expect(recorded.map(({ body, authorization, headers }) => ({ body, authorization, headers }))).toEqual([
      {
        body: { model: 'shared', messages: [{ role: 'user', content: 'one' }] },
        authorization: 'Bearer test-key',
      },
      {
        body: { model: 'shared', max_tokens: 64, messages: [{ role: 'user', content: 'two' }] },
        authorization: null,
        headers: { 'x-api-key': 'test-key', 'anthropic-version': '2023-06-01' },
      },
      {
        body: { contents: [{ role: 'user', parts: [{ text: 'three' }] }] },
        authorization: null,
        headers: { 'x-goog-api-key': 'test-key' },
      },
    ])
    expect(recorded[0]!.at).toBeLessThan(recorded[1]!.at)
    expect(recorded[1]!.at).toBeLessThan(recorded[2]!.at)
  })

  it("counts a failing model's requests in all formats together", async () => {
    await reset('rate-limited-2')
    expect((await ask('openai', 'rate-limited-2')).status).toBe(429)
    const anthropic = await ask('anthropic', 'rate-limited-2')
    expect(anthropic.status).toBe(429)
    expect(await anthropic.json()).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: RATE_LIMIT_MESSAGE },
    })
    expect(await textOf(await ask('gemini', 'rate-limited-2'))).toBe('echo: hi')
  })

  it("takes a script's answers in order, whichever format asks", async () => {
    const answers: ScriptedAnswer[] = [{ content: 'first' }, { content: 'second' }, { content: 'third' }]
    expect((await admin('/__script', 'scripted', 'POST', { answers })).status).toBe(200)
    expect(await textOf(await ask('gemini', 'scripted'))).toBe('first')
    expect(await textOf(await ask('openai', 'scripted'))).toBe('second')
    expect(await textOf(await ask('anthropic', 'scripted'))).toBe('third')
  })

  it("overloaded-N answers OpenAI's 503 server_error, Anthropic's 529 overloaded_error, Google's 503 UNAVAILABLE", async () => {
    const seen: Record<string, unknown> = {}
    for (const format of ['openai', 'anthropic', 'gemini'] as const) {
      await reset('overloaded-1')
      const res = await ask(format, 'overloaded-1')
      seen[format] = { status: res.status, body: await res.json() }
      expect((await ask(format, 'overloaded-1')).status).toBe(200)
    }
    expect(seen).toEqual({
      openai: { status: 503, body: { error: { message: OVERLOADED_MESSAGE, type: 'server_error' } } },
      anthropic: {
        status: 529,
        body: { type: 'error', error: { type: 'overloaded_error', message: OVERLOADED_MESSAGE } },
      },
      gemini: { status: 503, body: { error: { code: 503, message: OVERLOADED_MESSAGE, status: 'UNAVAILABLE' } } },
    })
  })

  it('answers a path it does not serve in the format whose paths it looks like', async () => {
    const answer = async (path: string) => {
      const res = await fetch(`${server.origin}${path}`, { method: 'POST', body: '{}' })
      return { status: res.status, body: (await res.json()) as unknown }
    }
    expect(await answer('/v1/models')).toEqual({
      status: 404,
      body: { error: { message: 'no route POST /v1/models', type: 'invalid_request_error', code: 'unknown_url' } },
    })
    expect(await answer('/v1/messages/count_tokens')).toEqual({
      status: 404,
      body: { type: 'error', error: { type: 'not_found_error', message: 'no route POST /v1/messages/count_tokens' } },
    })
    expect(await answer('/v1beta/models')).toEqual({
      status: 404,
      body: { error: { code: 404, message: 'no route POST /v1beta/models', status: 'NOT_FOUND' } },
    })
  })
})
