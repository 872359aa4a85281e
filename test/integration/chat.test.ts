// POST /api/prompts/{id}/chat against a local OpenAI-compatible server the
// test setup started (its behaviour is chosen by the model name).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import evaluator from '../../examples/extensions/evaluator.json'
import { call, chatEnv, freshRedis, llmServer, logged } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import worker from '../../functions/index'
import type { Env } from '../../lib/env'

const llm = llmServer()
let db: TestRedis
let env: Env

beforeAll(async () => {
  db = await freshRedis()
  env = chatEnv(db)
  await db.redis.mset({
    'shenma:extensions:evaluator': evaluator,
    'shenma:environs:vscode:rules': ['readability'],
    'shenma:environs:codebase:current_project': { name: 'shop-api' },
    'shenma:templates:team:summary': {
      prompt: 'Summarise {{.args.topic}}.',
      parameters: [{ name: 'topic', type: 'string', required: true }],
    },
  })
})
afterAll(() => db.release())

const chat = (id: string, body: Record<string, unknown>, over: Env = {}) =>
  call({ ...env, ...over }, 'POST', `/api/prompts/${id}/chat`, body)

/** A streamed chat's raw text: the events as the client receives them. */
async function streamed(id: string, body: Record<string, unknown>, over: Env = {}) {
  const ctx = createExecutionContext()
  const res = await worker.fetch(
    new Request(`http://shell.test/api/prompts/${id}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    }),
    { ...env, ...over },
    ctx,
  )
  const text = await res.text()
  await waitOnExecutionContext(ctx)
  return { res, text }
}

describe('chat', () => {
  it("answers the provider's chat completion unchanged, after sending the rendered messages", async () => {
    await llm.reset('ok')
    const { status, body, headers } = await chat('evaluator.evaluate_quality', {
      model: 'ok',
      temperature: 0.2,
      stop: ['END'],
    })
    expect(status).toBe(200)
    const userContent =
      'Evaluate the project code from the following dimensions and give a quality assessment report.\nEvaluation dimensions: readability\nRepository: (not given)\nCode context:\n{"name":"shop-api"}'
    expect(body).toEqual({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1700000000,
      model: 'ok',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: `echo: ${userContent}` },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      system_fingerprint: 'fp_test',
    })
    expect(headers.get('server-timing')).toMatch(
      /^redis;dur=\d+, tools;dur=\d+, render;dur=\d+, llm;dur=\d+, total;dur=\d+$/,
    )
    const [sent] = await llm.requests('ok')
    expect(sent?.authorization).toBe('Bearer test-key')
    expect(sent?.body).toMatchObject({
      model: 'ok',
      temperature: 0.2,
      stop: ['END'],
      messages: [
        { role: 'system', content: evaluator.contributes.prompts[0]?.messages?.[0]?.content },
        { role: 'user', content: userContent },
      ],
    })
  })

  it('sends a prompt-kind template as one user message, and never the args', async () => {
    await llm.reset('ok')
    const { body } = await chat('team.summary', { model: 'ok', args: { topic: 'secret-topic-value' }, seed: 7 })
    expect((body.choices as { message: { content: string } }[])[0]?.message.content).toBe(
      'echo: Summarise secret-topic-value.',
    )
    const [sent] = await llm.requests('ok')
    expect(sent?.body.messages).toEqual([{ role: 'user', content: 'Summarise secret-topic-value.' }])
    expect(sent?.body).not.toHaveProperty('args')
    expect(sent?.body.seed).toBe(7)
  })

  it('answers a render error as /render does even when no model is named', async () => {
    const fromChat = await chat('team.nope', {})
    const fromRender = await call(env, 'POST', '/api/prompts/team.nope/render', {})
    expect({ status: fromChat.status, body: fromChat.body }).toEqual({
      status: fromRender.status,
      body: fromRender.body,
    })
  })

  it('answers a render error exactly as /render does, and makes no LLM request', async () => {
    await llm.reset('ok')
    const fromChat = await chat('team.summary', { model: 'ok', args: {} })
    const fromRender = await call(env, 'POST', '/api/prompts/team.summary/render', { args: {} })
    expect({ status: fromChat.status, body: fromChat.body }).toEqual({
      status: fromRender.status,
      body: fromRender.body,
    })
    expect(fromChat.body.code).toBe('INVALID_ARGS')
    expect(await llm.requests('ok')).toHaveLength(0)
  })

  it('routes a model named in LLM_ROUTES to its provider and key', async () => {
    await llm.reset('routed')
    const LLM_ROUTES = JSON.stringify({ routed: { baseURL: llm.url, apiKeyVar: 'OTHER_KEY' } })
    const { status } = await chat('team.summary', { model: 'routed', args: { topic: 'x' } }, {
      LLM_ROUTES,
      OTHER_KEY: 'other-secret',
    } as Env)
    expect(status).toBe(200)
    expect((await llm.requests('routed'))[0]?.authorization).toBe('Bearer other-secret')
  })

  it('uses LLM_DEFAULT_MODEL, and says so when there is no model at all', async () => {
    expect((await chat('team.summary', { args: { topic: 'x' } }, { LLM_DEFAULT_MODEL: 'ok' })).status).toBe(200)
    const none = await chat('team.summary', { args: { topic: 'x' } })
    expect({ status: none.status, code: none.body.code }).toEqual({ status: 400, code: 'BAD_REQUEST' })
    expect(none.body.message).toBe('the body names no model, and LLM_DEFAULT_MODEL is not set')
  })

  it('says no LLM is configured, naming the settings, when there is neither an LLM nor a model', async () => {
    const { status, body } = await chat('team.summary', { args: { topic: 'x' } }, { LLM_BASE_URL: undefined } as Env)
    expect({ status, code: body.code, setting: body.setting }).toEqual({
      status: 503,
      code: 'MISCONFIGURED',
      setting: 'LLM_BASE_URL',
    })
    expect(body.message).toMatch(/no LLM is configured/)
    for (const setting of ['LLM_BASE_URL', 'LLM_ROUTES', 'LLM_DEFAULT_MODEL']) expect(body.message).toContain(setting)
    // Naming a model changes nothing: there is still nowhere to send it.
    const named = await chat('team.summary', { model: 'ok', args: { topic: 'x' } }, { LLM_BASE_URL: undefined } as Env)
    expect({ status: named.status, message: named.body.message }).toEqual({ status: 503, message: body.message })
  })
})

describe('the retry policy', () => {
  it('waits LLM_RETRY_DELAYS_MS before each retry: two 500s then an answer is a 200 after three requests', async () => {
    await llm.reset('fail-2')
    const { status } = await chat(
      'team.summary',
      { model: 'fail-2', args: { topic: 'x' } },
      { LLM_RETRY_DELAYS_MS: '20,80' },
    )
    expect(status).toBe(200)
    const seen = await llm.requests('fail-2')
    expect(seen).toHaveLength(3)
    // Recorded at the server: the waits are at least the ones configured, in their order (a millisecond for the clocks).
    const first = (seen[1]?.at as number) - (seen[0]?.at as number)
    const second = (seen[2]?.at as number) - (seen[1]?.at as number)
    expect(first).toBeGreaterThanOrEqual(19)
    expect(second).toBeGreaterThanOrEqual(79)
  })

  it('retries as many times as LLM_RETRY_DELAYS_MS has waits', async () => {
    await llm.reset('fail-3')
    const { status } = await chat(
      'team.summary',
      { model: 'fail-3', args: { topic: 'x' } },
      { LLM_RETRY_DELAYS_MS: '0,0,0' },
    )
    expect(status).toBe(200)
    expect(await llm.requests('fail-3')).toHaveLength(4)
  })

  it('answers a malformed LLM_RETRY_DELAYS_MS 503 MISCONFIGURED naming it, before any LLM request', async () => {
    await llm.reset('ok')
    const { status, body } = await chat(
      'team.summary',
      { model: 'ok', args: { topic: 'x' } },
      { LLM_RETRY_DELAYS_MS: '100,soon' },
    )
    expect({ status, code: body.code, setting: body.setting }).toEqual({
      status: 503,
      code: 'MISCONFIGURED',
      setting: 'LLM_RETRY_DELAYS_MS',
    })
    expect(await llm.requests('ok')).toHaveLength(0)
  })

  it('gives 502 LLM_FAILED with the last error after three failures', async () => {
    await llm.reset('fail-3')
    const { status, body } = await chat('team.summary', { model: 'fail-3', args: { topic: 'x' } })
    expect({ status, code: body.code }).toEqual({ status: 502, code: 'LLM_FAILED' })
    expect(body.message).toMatch(/500 upstream exploded/)
    expect(await llm.requests('fail-3')).toHaveLength(3)
  })

  it('gives 400 LLM_REJECTED at once for a model the provider does not have', async () => {
    await llm.reset('missing-model')
    const { status, body } = await chat('team.summary', { model: 'missing-model', args: { topic: 'x' } })
    expect({ status, code: body.code }).toEqual({ status: 400, code: 'LLM_REJECTED' })
    expect(body.message).toMatch(/does not exist/)
    expect(await llm.requests('missing-model')).toHaveLength(1)
  })

  it('retries an answer that breaks off or stalls after its headers, then gives 502', async () => {
    for (const model of ['stream-cut', 'stream-stall']) {
      await llm.reset(model)
      const { status, body } = await chat('team.summary', { model, args: { topic: 'x' } }, { LLM_TIMEOUT_MS: '200' })
      expect({ model, status, code: body.code }).toEqual({ model, status: 502, code: 'LLM_FAILED' })
      expect(await llm.requests(model)).toHaveLength(3)
    }
  })

  for (const model of ['rate-limited-1', 'garbage-1', 'malformed-1', 'timeout-1']) {
    it(`retries ${model.replace('-1', '')} and answers`, async () => {
      await llm.reset(model)
      const { status } = await chat('team.summary', { model, args: { topic: 'x' } }, { LLM_TIMEOUT_MS: '300' })
      expect(status).toBe(200)
      expect(await llm.requests(model)).toHaveLength(2)
    })
  }
})

describe("a provider's error answers", () => {
  it('are read 64 KiB at most: a 200 MB one is a short 400 LLM_REJECTED, and its connection let go', async () => {
    const model = 'reject-big-200000000'
    await llm.reset(model)
    const { status, body } = await chat('team.summary', { model, args: { topic: 'x' } })
    expect({ status, code: body.code }).toEqual({ status: 400, code: 'LLM_REJECTED' })
    expect(String(body.message).length).toBeLessThan(400)
    expect(await llm.requests(model)).toHaveLength(1)
    expect(await llm.idle(model)).toEqual({ cutShort: 1 })
    expect((await chat('team.summary', { model: 'ok', args: { topic: 'x' } })).status).toBe(200)
  })

  it('are read within LLM_TIMEOUT_MS: one that stalls is retried, then 502 LLM_FAILED', async () => {
    const model = 'reject-stall'
    await llm.reset(model)
    const env = { LLM_TIMEOUT_MS: '200' }
    const { status, body } = await chat('team.summary', { model, args: { topic: 'x' } }, env)
    expect({ status, code: body.code }).toEqual({ status: 502, code: 'LLM_FAILED' })
    expect(await llm.requests(model)).toHaveLength(3)
  })
})

describe('answers over LLM_MAX_BYTES (4 MiB by default)', () => {
  // More than socket buffers hold: the server is still writing when the Worker lets the answer go.
  const BIG = 'big-100000000'

  it('give 502 LLM_FAILED naming the limit, without another try, and let the connection go', async () => {
    await llm.reset(BIG)
    const { status, body } = await chat('team.summary', { model: BIG, args: { topic: 'x' } })
    expect({ status, code: body.code, message: body.message }).toEqual({
      status: 502,
      code: 'LLM_FAILED',
      message: 'the provider answered more than LLM_MAX_BYTES (4194304 bytes)',
    })
    expect(await llm.requests(BIG)).toHaveLength(1)
    expect(await llm.idle(BIG)).toEqual({ cutShort: 1 })
    expect((await chat('team.summary', { model: 'ok', args: { topic: 'x' } })).status).toBe(200)
  })

  it('end a stream with an error event naming the limit, within the limit', async () => {
    await llm.reset(BIG)
    const { res, text } = await streamed('team.summary', { model: BIG, args: { topic: 'x' } })
    expect(res.status).toBe(200)
    expect(text).not.toContain('[DONE]')
    const events = text.split('\n\n').filter(Boolean)
    expect(events.at(-1)).toBe(
      'event: error\ndata: {"error":{"code":"LLM_FAILED","message":"the answer passed LLM_MAX_BYTES (4194304 bytes)"}}',
    )
    expect(new TextEncoder().encode(text).byteLength).toBeLessThan(4194304 + 200)
    expect(await llm.idle(BIG)).toEqual({ cutShort: 1 })
    expect((await chat('team.summary', { model: 'ok', args: { topic: 'x' } })).status).toBe(200)
  })

  it('under it are answered whole', async () => {
    const { status, body } = await chat('team.summary', { model: 'big-100000', args: { topic: 'x' } })
    expect(status).toBe(200)
    expect((body.choices as { message: { content: string } }[])[0]?.message.content).toHaveLength(100000)
  })
})

describe('streaming', () => {
  it('forwards the chunks in order and ends with [DONE]', async () => {
    const { res, text } = await streamed('team.summary', { model: 'ok', args: { topic: 'a b' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = text.split('\n\n').filter(Boolean)
    expect(events.at(-1)).toBe('data: [DONE]')
    // Before [DONE], the summary: no tool rounds, and the usage the provider reported.
    const summary = events.at(-2) ?? ''
    expect(summary).toMatch(/^event: summary\ndata: /)
    expect(JSON.parse(summary.replace(/^event: summary\ndata: /, ''))).toMatchObject({
      choices: [],
      steps: 0,
      usage: { prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    })
    const deltas = events
      .slice(0, -2)
      .map((e) => JSON.parse(e.replace(/^data: /, '')) as { choices: { delta: { content?: string } }[] })
      .map((chunk) => chunk.choices[0]?.delta.content ?? '')
    expect(deltas.join('')).toBe('echo: Summarise a b.')
  })

  it('ends a stream cut mid-way with an error event and no [DONE], and logs the failure', async () => {
    const {
      result: { text },
      lines,
    } = await logged(() => streamed('team.summary', { model: 'stream-cut', args: { topic: 'x' } }))
    expect(text).not.toContain('[DONE]')
    expect(text).toMatch(/event: error\ndata: \{"error":\{"code":"LLM_FAILED","message":".+"\}\}\n\n$/)
    // The request's line says 200 (the stream had started); the failure has its own.
    expect(lines.map((l) => [l.msg, l.status ?? l.code])).toEqual([
      ['request', 200],
      ['chat stream ended with an error', 'LLM_FAILED'],
    ])
    expect(lines[1]?.request_id).toBe(lines[0]?.request_id)
  })

  it('ends a stream that falls silent longer than LLM_TIMEOUT_MS with an error event', async () => {
    const { text } = await streamed(
      'team.summary',
      { model: 'stream-stall', args: { topic: 'x' } },
      { LLM_TIMEOUT_MS: '200' },
    )
    expect(text).not.toContain('[DONE]')
    expect(text).toMatch(/event: error\ndata: .*no chunk within 200 ms/)
  })

  it('retries before the first chunk', async () => {
    await llm.reset('fail-1')
    const { res, text } = await streamed('team.summary', { model: 'fail-1', args: { topic: 'x' } })
    expect(res.status).toBe(200)
    expect(text.trim().endsWith('data: [DONE]')).toBe(true)
    expect(await llm.requests('fail-1')).toHaveLength(2)
  })
})
