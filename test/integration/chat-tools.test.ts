// POST /chat with the prompt's tools offered to the model: a local OpenAI-compatible server scripted per request
// stands in for the model, and the REST tool server the test setup started answers the calls. Nothing is mocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, chatEnv, freshRedis, llmServer, toolServer } from '../support/harness'
import type { ScriptedAnswer, TestRedis } from '../support/harness'
import { restTool } from '../support/records'
import type { Echo } from '../support/tool-server'
import type { Env } from '../../lib/env'

const llm = llmServer()
const tools = toolServer()
let db: TestRedis
let env: Env

const lookup = (symbol: string, id = 'call_1'): ScriptedAnswer => ({
  tool_calls: [{ id, name: 'refs_lookup', arguments: JSON.stringify({ symbol }) }],
})

beforeAll(async () => {
  db = await freshRedis()
  env = chatEnv(db)
  await db.redis.mset({
    'shenma:tools:refs:lookup': restTool('refs', 'lookup', `${tools.url}/tools/refs/{symbol}?group=chat-loop`, {
      parameters: {
        symbol: { type: 'string', required: true, description: 'The symbol' },
        limit: { type: 'integer', default: 20 },
      },
    }),
    'shenma:tools:refs:broken': restTool('refs', 'broken', `${tools.url}/status/500/tools/broken?group=chat-fail`),
    'shenma:tools:refs:stuck': restTool('refs', 'stuck', `${tools.url}/hang/tools/stuck?group=chat-deadline`),
    'shenma:templates:team:rate': {
      prompt: 'Rate {{.args.symbol}}.',
      parameters: [{ name: 'symbol', type: 'string', required: true }],
      tools: ['refs_lookup', 'refs_broken', 'refs_stuck'],
    },
    'shenma:templates:team:gone': { prompt: 'Look it up.', tools: ['refs_lookup', 'refs_deleted'] },
  })
})
afterAll(() => db.release())

const chat = (body: Record<string, unknown>, over: Env = {}, id = 'team.rate') =>
  call({ ...env, ...over }, 'POST', `/api/prompts/${id}/chat`, { args: { symbol: 'Foo' }, ...body })

type Sent = { role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }
const messagesOf = (body: Record<string, unknown>) => body.messages as Sent[]
const choiceOf = (body: Record<string, unknown>) =>
  (body.choices as { message: Record<string, unknown>; finish_reason: string }[])[0]

describe('a chat whose prompt declares tools', () => {
  it('calls the tool the model asks for with its arguments, sends the answer back, and lists the step', async () => {
    await tools.reset('chat-loop')
    await llm.script('asks-once', [lookup('Foo'), { content: 'Foo is used well.' }])
    const { status, body } = await chat({ model: 'asks-once', tools: ['refs_lookup'] })
    expect(status).toBe(200)
    expect(choiceOf(body)).toMatchObject({ message: { content: 'Foo is used well.' }, finish_reason: 'stop' })
    expect(body.steps).toEqual([
      {
        step: 1,
        calls: [
          {
            id: 'call_1',
            tool: 'refs_lookup',
            arguments: { symbol: 'Foo' },
            ms: expect.any(Number),
            outcome: 'ok',
            result: expect.any(String),
          },
        ],
        usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      },
    ])
    // The tool server saw the model's arguments, with the declared default filled in.
    expect((await tools.stats('chat-loop')).requests).toEqual(['GET /tools/refs/Foo?limit=20'])

    const [first, second] = await llm.requests('asks-once')
    // The step says what the model was sent of the tool's answer.
    const toolMessage = messagesOf(second?.body ?? {}).find((m) => m.role === 'tool')
    expect((body.steps as { calls: { result: string }[] }[])[0]?.calls[0]?.result).toBe(toolMessage?.content)
    expect(first?.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'refs_lookup',
          description: 'lookup',
          parameters: {
            type: 'object',
            properties: {
              symbol: { type: 'string', description: 'The symbol' },
              limit: { type: 'integer', default: 20 },
            },
            required: ['symbol'],
          },
        },
      },
    ])
    expect(messagesOf(first?.body ?? {})).toEqual([{ role: 'user', content: 'Rate Foo.' }])
    const sent = messagesOf(second?.body ?? {})
    expect(sent.slice(0, 2)).toEqual([
      { role: 'user', content: 'Rate Foo.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'refs_lookup', arguments: '{"symbol":"Foo"}' } },
        ],
      },
    ])
    expect(sent[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' })
    const answer = JSON.parse(String(sent[2]?.content)) as Echo
    expect(answer).toMatchObject({ method: 'GET', path: '/tools/refs/Foo', query: { limit: '20' } })
    expect(sent).toHaveLength(3)
  })

  it('offers every declared tool the catalogue has when the body names none', async () => {
    await llm.script('offers', [{ content: 'ok' }])
    const { status, body } = await chat({ model: 'offers' }, {}, 'team.gone')
    expect(status).toBe(200)
    expect(body.steps).toEqual([])
    const [sent] = await llm.requests('offers')
    // refs_deleted is declared but not in the catalogue: left out, not fatal.
    expect((sent?.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['refs_lookup'])
  })

  it('answers a failed call and a call of no tool with an error text, and goes on', async () => {
    await llm.script('fails', [
      {
        tool_calls: [
          { id: 'c1', name: 'refs_broken', arguments: '{"x":"1"}' },
          { id: 'c2', name: 'rm_rf', arguments: '{}' },
          { id: 'c3', name: 'refs_lookup', arguments: 'not json' },
        ],
      },
      { content: 'Could not look it up.' },
    ])
    const { status, body } = await chat({ model: 'fails' })
    expect(status).toBe(200)
    const calls = (body.steps as { calls: { id: string; outcome: string; arguments: unknown }[] }[])[0]?.calls
    expect(calls?.map((c) => [c.id, c.outcome, c.arguments])).toEqual([
      ['c1', 'failed', { x: '1' }],
      ['c2', 'failed', {}],
      ['c3', 'failed', 'not json'],
    ])
    const [, second] = await llm.requests('fails')
    const answers = messagesOf(second?.body ?? {}).filter((m) => m.role === 'tool')
    expect(answers.map((m) => [m.tool_call_id, m.content])).toEqual([
      ['c1', expect.stringMatching(/^error: .*500/)],
      ['c2', "error: there is no tool named 'rm_rf'"],
      ['c3', 'error: the arguments are not a JSON object'],
    ])
  })

  it('stops after max_steps rounds of a model that never stops asking, with its last completion', async () => {
    await tools.reset('chat-loop')
    await llm.script('keeps-asking', [lookup('Foo')], { repeatLast: true })
    const { status, body } = await chat({ model: 'keeps-asking', max_steps: 2 })
    expect(status).toBe(200)
    expect(choiceOf(body)?.finish_reason).toBe('tool_calls')
    expect((body.steps as unknown[]).length).toBe(2)
    expect(body.stopped).toBe('max_steps')
    expect(await llm.requests('keeps-asking')).toHaveLength(3)
    // The same call twice is one call: the tool server was asked once.
    expect((await tools.stats('chat-loop')).calls).toBe(1)
  })

  it('refuses max_steps above CHAT_MAX_STEPS before asking the model', async () => {
    await llm.script('too-many', [{ content: 'x' }])
    const { status, body } = await chat({ model: 'too-many', max_steps: 3 }, { CHAT_MAX_STEPS: '2' })
    expect(status).toBe(400)
    expect(body).toMatchObject({ code: 'BAD_REQUEST', message: 'max_steps is 3, more than CHAT_MAX_STEPS (2)' })
    expect(await llm.requests('too-many')).toHaveLength(0)
  })

  it('stops at CHAT_TIMEOUT_MS while a tool hangs, and lets the call go', async () => {
    await tools.reset('chat-deadline')
    await llm.script('waits', [{ tool_calls: [{ id: 's1', name: 'refs_stuck', arguments: '{"x":"a"}' }] }])
    const { status, body } = await chat({ model: 'waits' }, { CHAT_TIMEOUT_MS: '300', TOOL_TIMEOUT_MS: '60000' })
    expect(status).toBe(200)
    expect(body.stopped).toBe('deadline')
    expect(body.steps).toEqual([
      { step: 1, calls: [expect.objectContaining({ id: 's1', outcome: 'failed' })], usage: expect.any(Object) },
    ])
    expect(await llm.requests('waits')).toHaveLength(1)
    expect((await tools.idle('chat-deadline')).cutShort).toBe(1)
  })

  it('answers 504 CHAT_TIMEOUT when the deadline passes while the model thinks', async () => {
    await llm.script('thinks', [lookup('Foo'), { hang: true }])
    const { status, body } = await chat({ model: 'thinks' }, { CHAT_TIMEOUT_MS: '400', LLM_TIMEOUT_MS: '60000' })
    expect(status).toBe(504)
    expect(body).toEqual({
      status: 'error',
      code: 'CHAT_TIMEOUT',
      message: 'the chat did not finish within CHAT_TIMEOUT_MS (400 ms)',
    })
    // The second request was made, then let go: the provider saw its client leave.
    expect(await llm.requests('thinks')).toHaveLength(2)
    expect((await llm.idle('thinks')).cutShort).toBe(1)
  })

  it('sends no tools at all with tool_choice none, and only the named ones with tools', async () => {
    await llm.script('chooses', [{ content: 'a' }], { repeatLast: true })
    await chat({ model: 'chooses', tool_choice: 'none' })
    await chat({ model: 'chooses', tools: [] })
    await chat({ model: 'chooses', tools: ['refs_broken'], tool_choice: 'required', parallel_tool_calls: false })
    const [none, empty, named] = await llm.requests('chooses')
    for (const sent of [none, empty]) {
      expect(sent?.body).not.toHaveProperty('tools')
      expect(sent?.body).not.toHaveProperty('tool_choice')
    }
    expect(named?.body).toMatchObject({ tool_choice: 'required', parallel_tool_calls: false })
    expect((named?.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['refs_broken'])

    const { status, body } = await chat({ model: 'chooses', tools: ['refs_lookup', 'shell_exec'] })
    expect(status).toBe(400)
    expect(body.message).toBe(
      "tools[1] 'shell_exec' is not a tool of this prompt: it declares refs_lookup, refs_broken, refs_stuck",
    )
  })

  it('forces tool_choice on the first request only', async () => {
    await llm.script('forced', [lookup('Foo'), { content: 'done' }])
    await chat({ model: 'forced', tool_choice: 'required' })
    const [first, second] = await llm.requests('forced')
    expect(first?.body.tool_choice).toBe('required')
    expect(second?.body.tool_choice).toBe('auto')
  })

  it("passes the caller's own function tools through and returns their calls untouched", async () => {
    const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }
    await llm.script('theirs', [{ tool_calls: [{ id: 'w1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] }])
    const { status, body } = await chat({ model: 'theirs', tools: ['refs_lookup', weather] })
    expect(status).toBe(200)
    expect(choiceOf(body)).toMatchObject({
      finish_reason: 'tool_calls',
      message: { tool_calls: [{ id: 'w1', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
    })
    expect(body.steps).toEqual([])
    const [sent] = await llm.requests('theirs')
    expect((sent?.body.tools as unknown[])[1]).toEqual(weather)

    // Both at once: the service makes its own call and hands back its answer, for the caller to continue with.
    await tools.reset('chat-loop')
    await llm.script('both', [
      {
        tool_calls: [
          { id: 'r1', name: 'refs_lookup', arguments: '{"symbol":"Bar"}' },
          { id: 'w1', name: 'get_weather', arguments: '{}' },
        ],
      },
    ])
    const mixed = await chat({ model: 'both', tools: ['refs_lookup', weather] })
    expect(mixed.status).toBe(200)
    expect(mixed.body.tool_messages).toEqual([{ role: 'tool', tool_call_id: 'r1', content: expect.any(String) }])
    expect((await tools.stats('chat-loop')).requests).toEqual(['GET /tools/refs/Bar?limit=20'])
    expect(await llm.requests('both')).toHaveLength(1)

    const clash = await chat({
      model: 'both',
      tools: ['refs_lookup', { ...weather, function: { name: 'refs_lookup' } }],
    })
    expect(clash.status).toBe(400)
  })
})
