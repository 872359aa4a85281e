// The compliance suite of the LLM adapters: one table of scenarios, run against the local provider speaking
// OpenAI's, Anthropic's and Gemini's own wire formats (test/support/llm-server.ts), each reached through a route
// of LLM_ROUTES naming its API. The chat route's answer must be the same OpenAI chat completion (or the same
// chunks) whichever API served it; what each API was sent is checked in its own terms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, chatEnv, fetchWorker, freshRedis, llmServer, toolServer } from '../support/harness'
import type { ScriptedAnswer, TestRedis } from '../support/harness'
import { restTool } from '../support/records'
import type { Env } from '../../lib/env'

const llm = llmServer()
const tools = toolServer()
const APIS = ['openai', 'anthropic', 'gemini'] as const
type Api = (typeof APIS)[number]
let db: TestRedis

const ERRORS = ['fail-1', 'overloaded-1', 'fail-3', 'missing-model', 'garbage-1', 'malformed-1']
const MODELS = ['cmp-plain', 'cmp-tools', 'cmp-retry', 'cmp-reject', 'stream-cut', 'cmp-dropped', ...ERRORS]
const KEYS = { OPENAI_KEY: 'o-key', ANTHROPIC_KEY: 'a-key', GEMINI_KEY: 'g-key' }

/** The environment that routes every model of the suite to `api`. */
function envFor(api: Api): Env {
  const root = llm.url.replace(/\/v1$/, '')
  const route =
    api === 'openai'
      ? { baseURL: llm.url, apiKeyVar: 'OPENAI_KEY' }
      : { api, baseURL: root, apiKeyVar: api === 'anthropic' ? 'ANTHROPIC_KEY' : 'GEMINI_KEY' }
  const routes = Object.fromEntries(MODELS.map((m) => [m, route]))
  return { ...chatEnv(db), ...KEYS, LLM_ROUTES: JSON.stringify(routes) } as Env
}

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.mset({
    'shenma:tools:refs:lookup': restTool('refs', 'lookup', `${tools.url}/tools/refs/{symbol}?group=compliance`, {
      parameters: { symbol: { type: 'string', required: true } },
    }),
    'shenma:templates:cmp:hello': { prompt: 'Say hello.' },
    'shenma:templates:cmp:brief': {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi.' },
      ],
    },
    'shenma:templates:cmp:rate': { prompt: 'Rate Foo.', tools: ['refs_lookup'] },
  })
})
afterAll(() => db.release())

/** Runs `run` once per API, the model scripted afresh each time; answers what each gave, by API. */
async function perApi<T>(model: string, script: ScriptedAnswer[] | undefined, run: (env: Env) => Promise<T>) {
  const results = {} as Record<Api, T>
  for (const api of APIS) {
    if (script) await llm.script(model, script)
    else await llm.reset(model)
    results[api] = await run(envFor(api))
  }
  return results
}

/** What must be the same whichever API answered: the choice (message, finish reason) and the usage. */
function essence(body: Record<string, unknown>) {
  const [choice] = body.choices as { message: Record<string, unknown>; finish_reason: string }[]
  return { message: choice?.message, finish_reason: choice?.finish_reason, usage: body.usage }
}

/** A streamed chat's events: the chunks' deltas and finish reasons, our own events, and how it ended. */
async function streamedEssence(env: Env, id: string, body: Record<string, unknown>) {
  const res = await fetchWorker(env, `/api/prompts/${id}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  })
  const text = await res.text()
  return text
    .split('\n\n')
    .filter((raw) => raw.trim() !== '')
    .map((raw) => {
      const name = /^event: (.*)$/m.exec(raw)?.[1]
      const data = /^data: (.*)$/m.exec(raw)?.[1] ?? ''
      if (data === '[DONE]') return '[DONE]'
      const parsed = JSON.parse(data) as Record<string, unknown>
      if (name) return { event: name, ...stripMs(parsed) }
      const choices = parsed.choices as { delta: unknown; finish_reason: unknown }[]
      return choices.map((c) => ({ delta: c.delta, finish: c.finish_reason }))
    })
}

/** A step's timings differ run to run. */
function stripMs(value: Record<string, unknown>) {
  return JSON.parse(JSON.stringify(value, (k, v: unknown) => (k === 'ms' ? 0 : v))) as Record<string, unknown>
}

const USAGE = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }

describe('the same chat on every API', () => {
  it('a plain answer: the same completion; each API sent its own request', async () => {
    const answers = await perApi('cmp-plain', [{ content: 'Hello there, friend.' }], async (env) => {
      const { status, body } = await call(env, 'POST', '/api/prompts/cmp.hello/chat', { model: 'cmp-plain' })
      expect(status).toBe(200)
      const [sent] = await llm.requests('cmp-plain')
      return { essence: essence(body), object: body.object, sent }
    })
    for (const api of APIS) {
      expect(answers[api].object).toBe('chat.completion')
      expect(answers[api].essence).toEqual({
        message: { role: 'assistant', content: 'Hello there, friend.' },
        finish_reason: 'stop',
        usage: USAGE,
      })
    }
    expect(answers.openai.sent?.authorization).toBe('Bearer o-key')
    expect(answers.anthropic.sent?.headers).toEqual({ 'x-api-key': 'a-key', 'anthropic-version': '2023-06-01' })
    expect(answers.anthropic.sent?.body).toEqual({
      model: 'cmp-plain',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }],
    })
    expect(answers.gemini.sent?.headers).toEqual({ 'x-goog-api-key': 'g-key' })
    expect(answers.gemini.sent?.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }] })
  })

  it('a system prompt and a multi-turn conversation: each API its own way of saying them', async () => {
    const messages = [
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'And you?' },
    ]
    const answers = await perApi('cmp-plain', [{ content: 'Fine.' }], async (env) => {
      const { body } = await call(env, 'POST', '/api/prompts/cmp.brief/chat', { model: 'cmp-plain', messages })
      const [sent] = await llm.requests('cmp-plain')
      return { essence: essence(body), sent: sent?.body }
    })
    expect(answers.anthropic.essence).toEqual(answers.openai.essence)
    expect(answers.gemini.essence).toEqual(answers.openai.essence)
    expect(answers.openai.sent?.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi.' },
      ...messages,
    ])
    expect(answers.anthropic.sent).toMatchObject({
      system: 'Be brief.',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi.' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
        { role: 'user', content: [{ type: 'text', text: 'And you?' }] },
      ],
    })
    expect(answers.gemini.sent).toMatchObject({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Hi.' }] },
        { role: 'model', parts: [{ text: 'Hello.' }] },
        { role: 'user', parts: [{ text: 'And you?' }] },
      ],
    })
  })

  it('content parts: text and images, by data URL or by URL, each API its own way', async () => {
    const parts = [
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
    ]
    const messages = [{ role: 'user', content: parts }]
    const answers = await perApi('cmp-plain', [{ content: 'A cat.' }], async (env) => {
      const { body } = await call(env, 'POST', '/api/prompts/cmp.hello/chat', { model: 'cmp-plain', messages })
      const [sent] = await llm.requests('cmp-plain')
      return { essence: essence(body), sent: sent?.body }
    })
    expect(answers.anthropic.essence).toEqual(answers.openai.essence)
    expect(answers.gemini.essence).toEqual(answers.openai.essence)
    expect((answers.openai.sent?.messages as unknown[]).at(-1)).toEqual(messages[0])
    expect((answers.anthropic.sent?.messages as { content: unknown[] }[])[0]?.content.slice(1)).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ])
    expect((answers.gemini.sent?.contents as { parts: unknown[] }[])[0]?.parts.slice(1)).toEqual([
      { text: 'What is this?' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { fileUri: 'https://example.com/cat.jpg' } },
    ])
  })

  const askThenAnswer: ScriptedAnswer[] = [
    { tool_calls: [{ id: 'call_1', name: 'refs_lookup', arguments: '{"symbol":"Foo"}' }] },
    { content: 'Foo is fine.' },
  ]

  it('a tool call and its result: the loop runs the same on every API', async () => {
    const answers = await perApi('cmp-tools', askThenAnswer, async (env) => {
      const { status, body } = await call(env, 'POST', '/api/prompts/cmp.rate/chat', { model: 'cmp-tools' })
      expect(status).toBe(200)
      const [first, second] = await llm.requests('cmp-tools')
      return { essence: essence(body), steps: stripMs({ steps: body.steps }), first: first?.body, second: second?.body }
    })
    for (const api of APIS) {
      expect(answers[api].essence).toEqual({
        message: { role: 'assistant', content: 'Foo is fine.' },
        finish_reason: 'stop',
        usage: USAGE,
      })
      expect(answers[api].steps).toEqual(answers.openai.steps)
    }
    expect(answers.openai.steps).toMatchObject({
      steps: [{ calls: [{ id: 'call_1', tool: 'refs_lookup', outcome: 'ok' }] }],
    })
    expect(answers.anthropic.first?.tools).toEqual([
      {
        name: 'refs_lookup',
        description: 'lookup',
        input_schema: { type: 'object', properties: { symbol: { type: 'string' } }, required: ['symbol'] },
      },
    ])
    const anthropicTurns = answers.anthropic.second?.messages as { role: string; content: Record<string, unknown>[] }[]
    expect(anthropicTurns.map((t) => t.role)).toEqual(['user', 'assistant', 'user'])
    expect(anthropicTurns[1]?.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'refs_lookup', input: { symbol: 'Foo' } },
    ])
    expect(anthropicTurns[2]?.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_1' })
    expect(answers.gemini.first?.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'refs_lookup',
            description: 'lookup',
            parametersJsonSchema: { type: 'object', properties: { symbol: { type: 'string' } }, required: ['symbol'] },
          },
        ],
      },
    ])
    const geminiContents = answers.gemini.second?.contents as { role: string; parts: Record<string, unknown>[] }[]
    expect(geminiContents.map((c) => c.role)).toEqual(['user', 'model', 'user'])
    expect(geminiContents[1]?.parts).toEqual([
      { functionCall: { id: 'call_1', name: 'refs_lookup', args: { symbol: 'Foo' } } },
    ])
    expect(geminiContents[2]?.parts[0]).toMatchObject({
      functionResponse: { id: 'call_1', name: 'refs_lookup', response: { method: 'GET', path: '/tools/refs/Foo' } },
    })
  })

  it('tool calls handed back: the same completion and the same chunks from every API', async () => {
    const calls: ScriptedAnswer[] = [
      {
        content: 'Looking.',
        tool_calls: [
          { id: 'call_1', name: 'refs_lookup', arguments: '{"symbol":"Foo"}' },
          { id: 'call_2', name: 'refs_lookup', arguments: '{"symbol":"Bar"}' },
        ],
      },
    ]
    const plain = await perApi('cmp-tools', calls, async (env) => {
      const { body } = await call(env, 'POST', '/api/prompts/cmp.rate/chat', { model: 'cmp-tools', max_steps: 0 })
      return essence(body)
    })
    expect(plain.openai).toEqual({
      message: {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'refs_lookup', arguments: '{"symbol":"Foo"}' } },
          { id: 'call_2', type: 'function', function: { name: 'refs_lookup', arguments: '{"symbol":"Bar"}' } },
        ],
      },
      finish_reason: 'tool_calls',
      usage: USAGE,
    })
    expect(plain.anthropic).toEqual(plain.openai)
    expect(plain.gemini).toEqual(plain.openai)

    const streamed = await perApi('cmp-tools', calls, (env) =>
      streamedEssence(env, 'cmp.rate', { model: 'cmp-tools', max_steps: 0 }),
    )
    /** The chunks as a client puts them together: the text, each call whole, the finish reason. */
    const assembled = (events: unknown[]) => {
      let text = ''
      let finish: unknown
      const calls: { id?: unknown; name: string; arguments: string }[] = []
      for (const e of events) {
        if (!Array.isArray(e)) continue
        for (const { delta, finish: f } of e as { delta: Record<string, unknown>; finish: unknown }[]) {
          if (typeof delta.content === 'string') text += delta.content
          for (const c of (delta.tool_calls ?? []) as {
            index: number
            id?: string
            function: Record<string, string>
          }[]) {
            const call = (calls[c.index] ??= { name: '', arguments: '' })
            if (c.id) call.id = c.id
            call.name += c.function.name ?? ''
            call.arguments += c.function.arguments ?? ''
          }
          if (f) finish = f
        }
      }
      return { text, calls, finish, done: events.at(-1) === '[DONE]' }
    }
    expect(assembled(streamed.openai)).toEqual({
      text: 'Looking.',
      calls: [
        { id: 'call_1', name: 'refs_lookup', arguments: '{"symbol":"Foo"}' },
        { id: 'call_2', name: 'refs_lookup', arguments: '{"symbol":"Bar"}' },
      ],
      finish: 'tool_calls',
      done: true,
    })
    expect(assembled(streamed.anthropic)).toEqual(assembled(streamed.openai))
    expect(assembled(streamed.gemini)).toEqual(assembled(streamed.openai))
  })

  it('a streamed answer with a tool call: the same chunks and steps from every API', async () => {
    const answers = await perApi('cmp-tools', askThenAnswer, (env) =>
      streamedEssence(env, 'cmp.rate', { model: 'cmp-tools' }),
    )
    expect(answers.openai.at(-1)).toBe('[DONE]')
    expect(answers.openai.some((e) => !Array.isArray(e) && e !== '[DONE]' && e.event === 'step')).toBe(true)
    expect(answers.anthropic).toEqual(answers.openai)
    expect(answers.gemini).toEqual(answers.openai)
  })

  it('429, then an answer: retried alike', async () => {
    const answers = await perApi('cmp-retry', [{ status: 429 }, { content: 'ok' }], async (env) => {
      const { status, body } = await call(env, 'POST', '/api/prompts/cmp.hello/chat', { model: 'cmp-retry' })
      return { status, essence: essence(body), requests: (await llm.requests('cmp-retry')).length }
    })
    for (const api of APIS) expect(answers[api]).toEqual({ ...answers.openai, requests: 2, status: 200 })
  })

  it('400: rejected alike, with the provider’s own words, without a retry', async () => {
    const answers = await perApi('cmp-reject', [{ status: 400, error: 'temperature is out of range' }], async (env) => {
      const { status, body } = await call(env, 'POST', '/api/prompts/cmp.hello/chat', { model: 'cmp-reject' })
      return { status, body, requests: (await llm.requests('cmp-reject')).length }
    })
    for (const api of APIS) {
      expect(answers[api]).toEqual({
        status: 400,
        body: {
          status: 'error',
          code: 'LLM_REJECTED',
          message: 'the provider refused the request (400): temperature is out of range',
        },
        requests: 1,
      })
    }
  })

  it.each(ERRORS)('%s: the same status, code and tries on every API', async (model) => {
    const answers = await perApi(model, undefined, async (env) => {
      const { status, body } = await call(env, 'POST', '/api/prompts/cmp.hello/chat', { model })
      return { status, code: body.code, tries: (await llm.requests(model)).length }
    })
    expect(answers.anthropic).toEqual(answers.openai)
    expect(answers.gemini).toEqual(answers.openai)
    expect(answers.openai).toEqual(
      {
        'fail-1': { status: 200, code: undefined, tries: 2 },
        'overloaded-1': { status: 200, code: undefined, tries: 2 },
        'garbage-1': { status: 200, code: undefined, tries: 2 },
        'malformed-1': { status: 200, code: undefined, tries: 2 },
        'fail-3': { status: 502, code: 'LLM_FAILED', tries: 3 },
        'missing-model': { status: 400, code: 'LLM_REJECTED', tries: 1 },
      }[model],
    )
  })

  it('a stream cut short: the same error event, and no [DONE]', async () => {
    const answers = await perApi('stream-cut', undefined, (env) =>
      streamedEssence(env, 'cmp.hello', { model: 'stream-cut' }),
    )
    for (const api of APIS) {
      expect(answers[api].at(-1)).toEqual({
        event: 'error',
        error: { code: 'LLM_FAILED', message: expect.any(String) },
      })
      expect(answers[api]).not.toContain('[DONE]')
    }
  })

  it('a parameter an API cannot take is left out, and said in a header', async () => {
    const answers = await perApi('cmp-dropped', [{ content: 'ok' }], async (env) => {
      const { status, headers } = await call(env, 'POST', '/api/prompts/cmp.hello/chat', {
        model: 'cmp-dropped',
        seed: 7,
        user: 'ana',
      })
      const [sent] = await llm.requests('cmp-dropped')
      return { status, dropped: headers.get('x-llm-dropped-parameters'), sent: sent?.body }
    })
    expect(answers.openai).toMatchObject({ status: 200, dropped: null, sent: { seed: 7, user: 'ana' } })
    expect(answers.anthropic).toMatchObject({ status: 200, dropped: 'seed', sent: { metadata: { user_id: 'ana' } } })
    expect(answers.anthropic.sent).not.toHaveProperty('seed')
    expect(answers.gemini).toMatchObject({ status: 200, dropped: 'user', sent: { generationConfig: { seed: 7 } } })
  })
})

describe('a route naming its API', () => {
  it('answers 503 MISCONFIGURED for an API it does not know, or a maxTokens that is no count', async () => {
    for (const [spec, problem] of [
      [
        { api: 'cohere', baseURL: 'https://x' },
        'names api "cohere" for model "cmp-plain": one of openai, anthropic, gemini',
      ],
      [
        { api: 'anthropic', baseURL: 'https://x', maxTokens: 0 },
        'has a maxTokens for model "cmp-plain" that is not a positive integer',
      ],
    ] as const) {
      const env = { ...chatEnv(db), LLM_ROUTES: JSON.stringify({ 'cmp-plain': spec }) }
      const { status, body } = await call(env, 'POST', '/api/prompts/cmp.hello/chat', { model: 'cmp-plain' })
      expect(status).toBe(503)
      expect(body).toMatchObject({ code: 'MISCONFIGURED', setting: 'LLM_ROUTES', message: `LLM_ROUTES ${problem}` })
    }
  })

  it("sends the route's maxTokens to Anthropic when the request has none, and the request's own when it has one", async () => {
    await llm.script('cmp-plain', [{ content: 'a' }], { repeatLast: true })
    const route = {
      api: 'anthropic',
      baseURL: llm.url.replace(/\/v1$/, ''),
      apiKeyVar: 'ANTHROPIC_KEY',
      maxTokens: 512,
    }
    const env = { ...chatEnv(db), ...KEYS, LLM_ROUTES: JSON.stringify({ 'cmp-plain': route }) } as Env
    await call(env, 'POST', '/api/prompts/cmp.hello/chat', { model: 'cmp-plain' })
    await call(env, 'POST', '/api/prompts/cmp.hello/chat', { model: 'cmp-plain', max_tokens: 64 })
    expect((await llm.requests('cmp-plain')).map((r) => r.body.max_tokens)).toEqual([512, 64])
  })
})
