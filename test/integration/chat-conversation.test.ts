// POST /chat with the caller's messages, answers checked against the prompt's `returns`, and the loop streamed:
// a local OpenAI-compatible server scripted per request stands in for the model. Nothing is mocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import OpenAI from 'openai'
import evaluator from '../../examples/extensions/evaluator.json'
import lookupRef from '../../examples/tools/codebase/lookup_ref.json'
import { call, chatEnv, fetchWorker, freshRedis, llmServer, toolServer } from '../support/harness'
import type { ScriptedAnswer, TestRedis } from '../support/harness'
import { restTool } from '../support/records'
import type { Env } from '../../lib/env'

const llm = llmServer()
const tools = toolServer()
let db: TestRedis
let env: Env

const SCORE = { type: 'object', properties: { score: { type: 'number' } }, required: ['score'] }

beforeAll(async () => {
  db = await freshRedis()
  env = chatEnv(db, { TOOLS_BASE_URL: `${tools.url}/tools` })
  await db.redis.mset({
    'shenma:extensions:evaluator': evaluator,
    'shenma:tools:codebase:lookup_ref': lookupRef,
    'shenma:environs:vscode:programming_language': 'go',
    'shenma:tools:refs:lookup': restTool('refs', 'lookup', `${tools.url}/tools/refs/{symbol}?group=chat-stream`, {
      parameters: { symbol: { type: 'string', required: true } },
    }),
    'shenma:templates:team:score': { prompt: 'Score it.', returns: SCORE },
    'shenma:templates:team:rate': { prompt: 'Rate it.', tools: ['refs_lookup'] },
    'shenma:templates:team:build': {
      prompt: 'Build it.',
      returns: { format: 'tags', tags: ['actions', 'read', 'code', 'task'] },
    },
    'shenma:templates:team:brief': {
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Summarise {{.args.topic}}.' },
      ],
      parameters: [{ name: 'topic', type: 'string' }],
    },
  })
})
afterAll(() => db.release())

const chat = (id: string, body: Record<string, unknown>, over: Env = {}) =>
  call({ ...env, ...over }, 'POST', `/api/prompts/${id}/chat`, body)
const choiceOf = (body: Record<string, unknown>) =>
  (body.choices as { message: Record<string, unknown>; finish_reason: string }[])[0]

/** A streamed chat's events, each its name (`message` when it has none) and its data parsed. */
async function streamed(id: string, body: Record<string, unknown>, over: Env = {}) {
  const res = await fetchWorker({ ...env, ...over }, `/api/prompts/${id}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  })
  const text = await res.text()
  const events = text
    .split('\n\n')
    .filter((raw) => raw.trim() !== '')
    .map((raw) => {
      const name = /^event: (.*)$/m.exec(raw)?.[1] ?? 'message'
      const data = /^data: (.*)$/m.exec(raw)?.[1] ?? ''
      return { name, data: data === '[DONE]' ? data : (JSON.parse(data) as Record<string, unknown>) }
    })
  return { res, events }
}
const contentOf = (events: { name: string; data: unknown }[]) =>
  events
    .filter((e) => e.name === 'message' && e.data !== '[DONE]')
    .map((e) => (e.data as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
    .join('')

describe('the caller’s messages', () => {
  it('are appended after the rendered prompt, content parts and names as given', async () => {
    await llm.script('conversation', [{ content: 'ok' }])
    const given = [
      { role: 'assistant', content: 'Rust is a language.' },
      { role: 'user', content: [{ type: 'text', text: 'Shorter.' }], name: 'ana' },
    ]
    const { status } = await chat('team.brief', { model: 'conversation', args: { topic: 'Rust' }, messages: given })
    expect(status).toBe(200)
    const [sent] = await llm.requests('conversation')
    expect(sent?.body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Summarise Rust.' },
      ...given,
    ])
  })

  it('are refused with 400 INVALID_MESSAGES naming the index and the rule, before any provider request', async () => {
    await llm.script('never-asked', [{ content: 'x' }])
    const cases: [unknown[], number, string][] = [
      [[{ role: 'tool', tool_call_id: 'call_9', content: '{}' }], 0, 'tool-answers-call'],
      [
        [
          { role: 'user', content: 'a' },
          { role: 'system', content: 'b' },
        ],
        1,
        'system-first',
      ],
      [[{ role: 'assistant', content: 'Sure' }], 0, 'ends-with-assistant'],
      [
        [
          { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'user', content: 'x' },
        ],
        0,
        'calls-answered',
      ],
    ]
    for (const [messages, index, rule] of cases) {
      const { status, body } = await chat('team.brief', { model: 'never-asked', messages })
      expect(status).toBe(400)
      expect(body).toMatchObject({ code: 'INVALID_MESSAGES', index, rule })
      expect(body.message).toMatch(new RegExp(`^messages\\[${index}\\] .*\\(${rule}\\)$`))
    }
    expect(await llm.requests('never-asked')).toHaveLength(0)
  })

  it('may end with the assistant’s turn when the caller asks to continue it', async () => {
    await llm.script('prefill', [{ content: ' 7}' }])
    const messages = [{ role: 'assistant', content: '{"score":' }]
    const { status } = await chat('team.brief', { model: 'prefill', messages, continue_final_message: true })
    expect(status).toBe(200)
    const [sent] = await llm.requests('prefill')
    expect((sent?.body.messages as unknown[]).at(-1)).toEqual(messages[0])
    expect(sent?.body).not.toHaveProperty('continue_final_message')
  })

  it('must have a known role and a well-formed tool call: 400 BAD_REQUEST naming the field', async () => {
    const { status, body } = await chat('team.brief', { model: 'x', messages: [{ role: 'robot', content: 'x' }] })
    expect(status).toBe(400)
    expect(body).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('messages.0.role: Invalid option'),
    })
  })
})

describe('an answer checked against returns', () => {
  it('is asked for as JSON of the schema, sent back with its problems, and parsed once valid', async () => {
    await llm.script('fixes-it', [{ content: '{"score": "high"}' }, { content: '{"score": 7}' }])
    const { status, body } = await chat('team.score', { model: 'fixes-it' })
    expect(status).toBe(200)
    expect(choiceOf(body)?.message).toEqual({ role: 'assistant', content: '{"score": 7}', parsed: { score: 7 } })
    const [first, second] = await llm.requests('fixes-it')
    expect(first?.body.response_format).toEqual({
      type: 'json_schema',
      // Not strict: strict mode needs `additionalProperties: false`.
      json_schema: { name: 'team_score', schema: SCORE, strict: false },
    })
    expect(second?.body.messages).toEqual([
      { role: 'user', content: 'Score it.' },
      { role: 'assistant', content: '{"score": "high"}' },
      {
        role: 'user',
        content:
          'Your answer does not match the required JSON Schema:\n- $.score must be number, not string\nAnswer again with only the corrected JSON.',
      },
    ])
    expect(await llm.requests('fixes-it')).toHaveLength(2)
  })

  it('still invalid after LLM_OUTPUT_RETRIES: 502 LLM_INVALID_OUTPUT with the problems', async () => {
    await llm.script('never-right', [{ content: '{"score": "high"}' }], { repeatLast: true })
    const { status, body } = await chat('team.score', { model: 'never-right' })
    expect(status).toBe(502)
    expect(body).toEqual({
      status: 'error',
      code: 'LLM_INVALID_OUTPUT',
      message:
        "the answer does not match the prompt's returns schema after 3 tries: $.score must be number, not string",
      errors: ['$.score must be number, not string'],
    })
    expect(await llm.requests('never-right')).toHaveLength(3)

    await llm.script('not-json', [{ content: 'I think 7' }], { repeatLast: true })
    const once = await chat('team.score', { model: 'not-json' }, { LLM_OUTPUT_RETRIES: '0' })
    expect(once.body).toMatchObject({ code: 'LLM_INVALID_OUTPUT', errors: ['the answer is not JSON'] })
    expect(await llm.requests('not-json')).toHaveLength(1)
  })

  it("keeps the caller's own response_format, and still checks the answer", async () => {
    await llm.script('own-format', [{ content: '{"score": 3}' }])
    const { body } = await chat('team.score', { model: 'own-format', response_format: { type: 'json_object' } })
    expect(choiceOf(body)?.message.parsed).toEqual({ score: 3 })
    const [sent] = await llm.requests('own-format')
    expect(sent?.body.response_format).toEqual({ type: 'json_object' })
  })

  it('runs the example prompt that declares a tool and returns: evaluator.review_symbol', async () => {
    await tools.reset()
    await llm.script('reviewer', [
      { tool_calls: [{ id: 'r', name: 'codebase_lookup_ref', arguments: '{"symbol":"Parse","limit":2}' }] },
      { content: '{"score": 8, "summary": "Parse is used consistently."}' },
    ])
    const { status, body } = await chat('evaluator.review_symbol', { model: 'reviewer', args: { symbol: 'Parse' } })
    expect(status).toBe(200)
    expect(choiceOf(body)?.message.parsed).toEqual({ score: 8, summary: 'Parse is used consistently.' })
    expect((await tools.stats()).requests).toEqual(['GET /tools/codebase/refs/Parse?limit=2'])
    const [first] = await llm.requests('reviewer')
    expect(first?.body.response_format).toMatchObject({
      json_schema: { name: 'evaluator_review_symbol', strict: true },
    })
    expect(first?.body.messages).toEqual([
      {
        role: 'user',
        content:
          'Rate from 0 to 10 how well the go symbol Parse is used in this codebase. Look up its references first, then answer with the score and a one-sentence summary.',
      },
    ])
  })

  it('is refused with n above 1: the loop follows one answer', async () => {
    const { status, body } = await chat('team.score', { model: 'x', n: 2 })
    expect(status).toBe(400)
    expect(body.message).toMatch(/^n must be 1/)
  })
})

const TAGGED = [
  '<code filename="a.py">print(1)</code>',
  'and again:',
  '<code filename="a.py">print(2)</code>',
  '<actions>',
  'ls',
  'rm -rf /',
  '</actions>',
].join('\n')
const PARSED = [
  { tag: 'code', attributes: { filename: 'a.py' }, content: 'print(1)' },
  { tag: 'code', attributes: { filename: 'a.py' }, content: 'print(2)' },
  {
    tag: 'actions',
    attributes: {},
    content: '\nls\nrm -rf /\n',
    commands: [{ line: 'ls' }, { line: 'rm -rf /', dangerous: true, reason: 'deletes recursively' }],
  },
]

describe('an answer in tags', () => {
  it('is parsed into the declared tags, a destructive command marked', async () => {
    await llm.script('tagged', [{ content: TAGGED }])
    const { status, body } = await chat('team.build', { model: 'tagged' })
    expect(status).toBe(200)
    expect(choiceOf(body)?.message).toEqual({
      role: 'assistant',
      content: TAGGED,
      parsed: PARSED,
      parse_warnings: [],
    })
    const [sent] = await llm.requests('tagged')
    expect(sent?.body).not.toHaveProperty('response_format')
  })

  it('is parsed once at the end of a stream, in the last event before the summary and [DONE]', async () => {
    await llm.script('tagged-stream', [{ content: TAGGED + '\n<task>unclosed' }])
    const { events } = await streamed('team.build', { model: 'tagged-stream' })
    expect(events.at(-2)?.name).toBe('summary')
    expect(events.at(-3)).toEqual({
      name: 'parsed',
      data: {
        object: 'chat.completion.chunk',
        choices: [],
        valid: true,
        parsed: [...PARSED, { tag: 'task', attributes: {}, content: 'unclosed' }],
        parse_warnings: ['the <task> at line 8 is not closed: its content runs to the end'],
      },
    })
    expect(events.at(-1)?.data).toBe('[DONE]')
  })
})

describe('a streamed loop', () => {
  const roundOne: ScriptedAnswer = {
    content: 'Let me look. ',
    tool_calls: [{ id: 'call_1', name: 'refs_lookup', arguments: '{"symbol":"Foo"}' }],
  }

  it('streams the text of every round, announces each tool round as a step, then [DONE]', async () => {
    await llm.script('streams', [roundOne, { content: 'Foo is fine.' }])
    const { res, events } = await streamed('team.rate', { model: 'streams' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(contentOf(events)).toBe('Let me look. Foo is fine.')
    const step = events.find((e) => e.name === 'step')
    expect(step?.data).toEqual({
      object: 'chat.completion.chunk',
      choices: [],
      step: {
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
        // Asked for with stream_options: the round's usage.
        usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      },
    })
    // The tool round's tool-call chunks stay here; the last round's finish reason reaches the caller.
    const deltas = events.flatMap((e) => (e.name === 'message' && e.data !== '[DONE]' ? [e.data] : []))
    expect(deltas.some((d) => JSON.stringify(d).includes('tool_calls'))).toBe(false)
    // Then the provider's usage chunk (no choices), asked for with stream_options.
    expect(deltas.at(-2)).toMatchObject({ choices: [{ finish_reason: 'stop' }] })
    expect(deltas.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 10 } })
    expect(events.indexOf(step as (typeof events)[number])).toBeLessThan(events.length - 2)
    expect(events.at(-1)?.data).toBe('[DONE]')
    const [, second] = await llm.requests('streams')
    expect(second?.body.stream).toBe(true)
    expect((second?.body.messages as { role: string }[]).map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
  })

  it('asks a provider that refuses stream_options again without them, once: the answer streams, the summary has no usage', async () => {
    await llm.reset('no-stream-options')
    const { res, events } = await streamed('team.rate', { model: 'no-stream-options' })
    expect(res.status).toBe(200)
    expect(contentOf(events)).toMatch(/^echo: /)
    const sent = await llm.requests('no-stream-options')
    expect(sent.map((r) => r.body.stream_options)).toEqual([{ include_usage: true }, undefined])
    const summary = events.find((e) => e.name === 'summary')
    expect(summary?.data).toEqual({ object: 'chat.completion.chunk', choices: [], steps: 0 })
    expect(events.at(-1)?.data).toBe('[DONE]')
  })

  it('asks again only for a 400 naming stream_options: another refusal is the answer', async () => {
    await llm.reset('bad-request')
    const { status, body } = await chat('team.rate', { model: 'bad-request', stream: true })
    expect(status).toBe(400)
    expect(body).toMatchObject({ status: 'error', code: 'LLM_REJECTED' })
    expect(await llm.requests('bad-request')).toHaveLength(1)
  })

  it("reads as one completion to OpenAI's own client", async () => {
    await llm.script('sdk', [roundOne, { content: 'Foo is fine.' }])
    const client = new OpenAI({
      apiKey: 'unused',
      baseURL: 'http://shell.test/v1',
      // The SDK posts to /chat/completions; the route is the prompt's.
      fetch: (_url: RequestInfo | URL, init?: RequestInit) => fetchWorker(env, '/api/prompts/team.rate/chat', init),
    })
    const stream = client.chat.completions.stream({ model: 'sdk', messages: [] })
    const completion = await stream.finalChatCompletion()
    expect(completion.choices[0]?.message.content).toBe('Let me look. Foo is fine.')
    expect(completion.choices[0]?.finish_reason).toBe('stop')
  })

  it('ends with the check of the answer against returns, without asking again', async () => {
    await llm.script('streamed-score', [{ content: '{"score": "high"}' }])
    const invalid = await streamed('team.score', { model: 'streamed-score' })
    expect(invalid.events.at(-3)).toEqual({
      name: 'parsed',
      data: {
        object: 'chat.completion.chunk',
        choices: [],
        valid: false,
        errors: ['$.score must be number, not string'],
      },
    })
    expect(await llm.requests('streamed-score')).toHaveLength(1)

    await llm.script('streamed-score', [{ content: '{"score": 7}' }])
    const valid = await streamed('team.score', { model: 'streamed-score' })
    expect(contentOf(valid.events)).toBe('{"score": 7}')
    expect(valid.events.at(-3)?.data).toMatchObject({ valid: true, parsed: { score: 7 } })
    expect(valid.events.at(-1)?.data).toBe('[DONE]')
  })

  it('says how a loop cut short ended, with the last round’s tool calls as the provider sent them', async () => {
    await llm.script('streams-forever', [roundOne], { repeatLast: true })
    const { events } = await streamed('team.rate', { model: 'streams-forever', max_steps: 1 })
    expect(events.filter((e) => e.name === 'step')).toHaveLength(1)
    expect(events.at(-2)).toEqual({
      name: 'summary',
      data: {
        object: 'chat.completion.chunk',
        choices: [],
        stopped: 'max_steps',
        steps: 1,
        // Two rounds of the provider's usage (7 + 3 = 10 each), summed.
        usage: { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 },
      },
    })
    const last = events.filter((e) => e.name === 'message' && e.data !== '[DONE]').map((e) => JSON.stringify(e.data))
    expect(last.some((d) => d.includes('"tool_calls"'))).toBe(true)
  })

  it('ends with an error event and no [DONE] when the deadline passes between rounds', async () => {
    await llm.script('stream-thinks', [roundOne, { hang: true }])
    const { res, events } = await streamed('team.rate', { model: 'stream-thinks' }, { CHAT_TIMEOUT_MS: '400' })
    expect(res.status).toBe(200)
    expect(events.at(-1)).toEqual({
      name: 'error',
      data: { error: { code: 'CHAT_TIMEOUT', message: 'the chat did not finish within CHAT_TIMEOUT_MS (400 ms)' } },
    })
    expect(events.some((e) => e.data === '[DONE]')).toBe(false)
    expect((await llm.idle('stream-thinks')).cutShort).toBe(1)
  })
})
