// Issue 32: /v1's wire formats as the bytes show them (the openai SDK's view is test/e2e/openai-sdk.test.ts): a
// Responses answer and its events, chat completions with a prompt and without (a pass-through), the models listed,
// and errors in OpenAI's shape. The LLM behind is the local OpenAI-compatible test server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatEnv, fetchWorker, freshRedis, llmServer, toolServer } from '../support/harness'
import type { ScriptedAnswer, TestRedis } from '../support/harness'
import { restTool } from '../support/records'
import { readToEnd, sentEvents } from '../support/sse-read'
import type { Env } from '../../lib/env'

const llm = llmServer()
const tools = toolServer()
let db: TestRedis
let env: Env

beforeAll(async () => {
  db = await freshRedis()
  env = chatEnv(db, { LLM_DEFAULT_MODEL: 'default-model' })
  await db.redis.mset({
    'shenma:templates:v1:greet': {
      prompt: 'Greet {{.args.name}}.',
      parameters: [{ name: 'name', type: 'string', required: true }],
    },
    'shenma:tools:refs:lookup': restTool('refs', 'lookup', `${tools.url}/tools/refs/{symbol}?group=v1-loop`, {
      parameters: { symbol: { type: 'string', required: true } },
    }),
    'shenma:templates:v1:rate': { prompt: 'Rate it.', tools: ['refs_lookup'] },
  })
})
afterAll(() => db.release())

async function post(path: string, body: unknown, over: Env = {}) {
  const res = await fetchWorker({ ...env, ...over }, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer anything' },
    body: JSON.stringify(body),
  })
  const { text } = await readToEnd(res)
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Record<string, unknown> }
}

const greet = { id: 'v1.greet', variables: { name: 'Ada' } }

describe('POST /v1/responses', () => {
  it('answers in the Responses format, the rendered prompt then the input sent to the model', async () => {
    await llm.script('resp-plain', [{ content: 'Hello, Ada.' }])
    const { status, json, headers } = await post('/v1/responses', {
      model: 'resp-plain',
      prompt: greet,
      input: 'Be brief.',
      instructions: 'You are kind.',
      max_output_tokens: 50,
    })
    expect(status).toBe(200)
    expect(headers.get('x-prompt-version')).toBe('unversioned')
    const body = json()
    expect(body).toMatchObject({
      object: 'response',
      status: 'completed',
      output_text: 'Hello, Ada.',
      output: [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello, Ada.', annotations: [] }],
        },
      ],
      usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10 },
    })
    expect(String(body.id)).toMatch(/^resp_/)
    const [sent] = await llm.requests('resp-plain')
    expect(sent?.body.messages).toEqual([
      { role: 'system', content: 'You are kind.' },
      { role: 'user', content: 'Greet Ada.' },
      { role: 'user', content: 'Be brief.' },
    ])
    expect(sent?.body.max_tokens).toBe(50)
  })

  it('streams Responses events in order, ending with response.completed and its usage', async () => {
    await llm.reset('ok')
    const { status, text, headers } = await post('/v1/responses', { model: 'ok', prompt: greet, stream: true })
    expect(status).toBe(200)
    expect(headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = sentEvents(text)
    const types = events.map((e) => e.event)
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ])
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    const data = events.map((e) => JSON.parse(e.data) as Record<string, unknown>)
    expect(data.map((d) => d.sequence_number)).toEqual(data.map((_, i) => i))
    const deltas = data.filter((d) => d.type === 'response.output_text.delta').map((d) => d.delta)
    expect(deltas.join('')).toBe('echo: Greet Ada.')
    expect(data.at(-1)).toMatchObject({
      response: { status: 'completed', output_text: 'echo: Greet Ada.', usage: { total_tokens: 10 } },
    })
  })

  it('takes the prompt from the model prompt:<id>, its variables from metadata, the model LLM_DEFAULT_MODEL', async () => {
    await llm.script('default-model', [{ content: 'hi' }])
    const { status } = await post('/v1/responses', { model: 'prompt:v1.greet', metadata: { name: 'Bo' } })
    expect(status).toBe(200)
    const [sent] = await llm.requests('default-model')
    expect(sent?.body.messages).toEqual([{ role: 'user', content: 'Greet Bo.' }])
  })
})

describe('POST /v1/responses with tools', () => {
  const lookup: ScriptedAnswer = { tool_calls: [{ id: 'c1', name: 'refs_lookup', arguments: '{"symbol":"Foo"}' }] }
  const weather = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} } }

  it("streamed through the prompt's tool loop: one message, usage summed over both steps", async () => {
    await tools.reset('v1-loop')
    await llm.script('resp-loop', [lookup, { content: 'Rated.' }])
    const { text } = await post('/v1/responses', { model: 'resp-loop', prompt: { id: 'v1.rate' }, stream: true })
    const data = sentEvents(text).map((e) => JSON.parse(e.data) as Record<string, unknown>)
    expect(data.filter((d) => d.type === 'response.output_item.added')).toHaveLength(1)
    expect(data.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { output_text: 'Rated.', usage: { input_tokens: 14, output_tokens: 6, total_tokens: 20 } },
    })
    expect((await tools.stats('v1-loop')).calls).toBe(1)
    const [first] = await llm.requests('resp-loop')
    expect(first?.body.stream_options).toEqual({ include_usage: true })
  })

  it("returns calls of the caller's tools as function_call items, the prompt's tools offered beside them", async () => {
    const call = { id: 'w1', name: 'get_weather', arguments: '{}' }
    await llm.script('resp-theirs', [{ tool_calls: [call] }])
    const { json } = await post('/v1/responses', { model: 'resp-theirs', prompt: { id: 'v1.rate' }, tools: [weather] })
    expect(json().output).toEqual([
      {
        type: 'function_call',
        id: expect.stringMatching(/^fc_/),
        call_id: 'w1',
        name: 'get_weather',
        arguments: '{}',
        status: 'completed',
      },
    ])
    const [sent] = await llm.requests('resp-theirs')
    const offered = (sent?.body.tools as { function: { name: string } }[]).map((t) => t.function.name)
    expect(offered).toEqual(['refs_lookup', 'get_weather'])
  })

  it('takes the output of a call back as a tool message, its call as the assistant turn before it', async () => {
    await llm.script('resp-back', [{ content: 'Sunny, then.' }])
    const input = [
      { role: 'user', content: 'Weather?' },
      { type: 'function_call', call_id: 'w1', name: 'get_weather', arguments: '{}' },
      { type: 'function_call_output', call_id: 'w1', output: 'sunny' },
    ]
    const { status } = await post('/v1/responses', { model: 'resp-back', prompt: greet, input, tools: [weather] })
    expect(status).toBe(200)
    const [sent] = await llm.requests('resp-back')
    expect((sent?.body.messages as unknown[]).slice(1)).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'w1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'w1', content: 'sunny' },
    ])
  })

  it('a stream that fails ends with an error event, and no response.completed', async () => {
    const { status, text } = await post(
      '/v1/responses',
      { model: 'big-100000000', prompt: greet, stream: true },
      { LLM_MAX_BYTES: '200000' },
    )
    expect(status).toBe(200)
    const events = sentEvents(text)
    expect(events.at(-1)?.event).toBe('error')
    expect(JSON.parse(events.at(-1)?.data ?? '{}')).toMatchObject({
      type: 'error',
      code: 'LLM_FAILED',
      message: 'the answer passed LLM_MAX_BYTES (200000 bytes)',
      param: null,
    })
    expect(events.map((e) => e.event)).not.toContain('response.completed')
  })
})

describe('POST /v1/chat/completions', () => {
  it("with LiteLLM's prompt_id: the chat completion, the body's messages after the rendered ones", async () => {
    await llm.script('cc-prompt', [{ content: 'Hi Ada' }])
    const { status, json } = await post('/v1/chat/completions', {
      model: 'cc-prompt',
      prompt_id: 'v1.greet',
      prompt_variables: { name: 'Ada' },
      messages: [{ role: 'user', content: 'Now.' }],
    })
    expect(status).toBe(200)
    expect(json()).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Hi Ada' } }] })
    const [sent] = await llm.requests('cc-prompt')
    expect(sent?.body.messages).toEqual([
      { role: 'user', content: 'Greet Ada.' },
      { role: 'user', content: 'Now.' },
    ])
    expect(sent?.body).not.toHaveProperty('prompt_id')
  })

  it('without a prompt: the body goes to the model as sent', async () => {
    await llm.script('cc-plain', [{ content: 'plain' }])
    const messages = [{ role: 'user', content: 'Just this.' }]
    const { status, json } = await post('/v1/chat/completions', { model: 'cc-plain', messages, seed: 3 })
    expect(status).toBe(200)
    expect(json()).toMatchObject({ choices: [{ message: { content: 'plain' } }] })
    const [sent] = await llm.requests('cc-plain')
    expect(sent?.body).toMatchObject({ model: 'cc-plain', messages, seed: 3 })
  })
})

describe('POST /v1/chat/completions, streamed', () => {
  it("through the prompt's tool loop: only OpenAI's chunks, the usage chunk summed over the steps", async () => {
    const lookup: ScriptedAnswer = { tool_calls: [{ id: 'c1', name: 'refs_lookup', arguments: '{"symbol":"Foo"}' }] }
    await llm.script('cc-loop', [lookup, { content: 'Rated.' }])
    const { status, text } = await post('/v1/chat/completions', {
      model: 'cc-loop',
      prompt: { id: 'v1.rate' },
      messages: [],
      stream: true,
      stream_options: { include_usage: true },
    })
    expect(status).toBe(200)
    const events = sentEvents(text)
    expect(events.filter((e) => e.event !== undefined)).toEqual([])
    expect(events.at(-1)?.data).toBe('[DONE]')
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as Record<string, unknown>)
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true)
    expect(chunks.filter((c) => c.usage).map((c) => c.usage)).toEqual([
      { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 },
    ])
  })

  it("through the prompt's tool loop, no usage asked: no usage chunk, though the chat asked the provider for it", async () => {
    await llm.script('cc-quiet', [{ content: 'Rated.' }])
    const { status, text } = await post('/v1/chat/completions', {
      model: 'cc-quiet',
      prompt: { id: 'v1.rate' },
      messages: [],
      stream: true,
    })
    expect(status).toBe(200)
    const events = sentEvents(text)
    expect(events.at(-1)?.data).toBe('[DONE]')
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as Record<string, unknown>)
    expect(chunks.length).toBeGreaterThan(0)
    // The provider's `usage: null` on each chunk (OpenAI's, once usage is asked) goes through: it says nothing.
    expect(chunks.filter((c) => c.usage !== undefined && c.usage !== null)).toEqual([])
    expect(chunks.filter((c) => Array.isArray(c.choices) && c.choices.length === 0)).toEqual([])
    const [sent] = await llm.requests('cc-quiet')
    expect(sent?.body.stream_options).toEqual({ include_usage: true })
  })

  it("without a prompt: the provider's chunks as they came", async () => {
    await llm.reset('ok')
    const messages = [{ role: 'user', content: 'Hi.' }]
    const { status, text } = await post('/v1/chat/completions', { model: 'ok', messages, stream: true })
    expect(status).toBe(200)
    const events = sentEvents(text)
    expect(events.at(-1)?.data).toBe('[DONE]')
    const content = events
      .slice(0, -1)
      .map(
        (e) => (JSON.parse(e.data) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '',
      )
    expect(content.join('')).toBe('echo: Hi.')
  })
})

describe('GET /v1/models', () => {
  it("lists LLM_ROUTES' models and LLM_DEFAULT_MODEL, once each", async () => {
    const routes = JSON.stringify({ 'model-a': { baseURL: llm.url }, 'default-model': { baseURL: llm.url } })
    const res = await fetchWorker({ ...env, LLM_ROUTES: routes }, '/v1/models')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      object: 'list',
      data: ['model-a', 'default-model'].map((id) => ({
        id,
        object: 'model',
        created: 0,
        owned_by: 'ai-prompt-shell',
      })),
    })
  })
})

describe('errors on /v1', () => {
  it("are OpenAI's: an unknown prompt is 404 not_found_error naming it, code NOT_FOUND", async () => {
    const { status, json } = await post('/v1/responses', { model: 'ok', prompt: { id: 'v1.nope' } })
    expect(status).toBe(404)
    expect(json()).toEqual({
      error: { message: "prompt 'v1.nope' does not exist", type: 'not_found_error', param: null, code: 'NOT_FOUND' },
    })
  })

  it('a missing required variable: 400 INVALID_ARGS, param the variable', async () => {
    const { status, json } = await post('/v1/chat/completions', {
      model: 'ok',
      prompt: { id: 'v1.greet' },
      messages: [],
    })
    expect(status).toBe(400)
    expect(json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'name', code: 'INVALID_ARGS' } })
  })

  it('a bad token: 401 authentication_error; a body that does not fit: 400 BAD_REQUEST', async () => {
    const bad = await post('/v1/responses', { prompt: greet }, { API_TOKEN: 'secret' })
    expect(bad.status).toBe(401)
    expect(bad.json()).toMatchObject({ error: { type: 'authentication_error', code: 'UNAUTHORIZED' } })
    const unfit = await post('/v1/responses', { prompt: greet, input: 3 })
    expect(unfit.status).toBe(400)
    expect(unfit.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'BAD_REQUEST' } })
  })

  it('keep /api in its own shape', async () => {
    const { json } = await post('/api/prompts/v1.nope/render', {})
    expect(json()).toMatchObject({ status: 'error', code: 'NOT_FOUND' })
  })
})
