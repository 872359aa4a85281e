import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import {
  startLlmServer,
  BAD_REQUEST_MESSAGE,
  FAIL_MESSAGE,
  GARBAGE,
  MESSAGE_ID,
  OVERLOADED_MESSAGE,
  RATE_LIMIT_MESSAGE,
} from '../support/llm-server.js'
import type { LlmIdle, LlmRequestRecord, LlmServer, ScriptedAnswer } from '../support/llm-server.js'
import { firstEvent, readToEnd, sentEvents } from '../support/sse-read.js'
import type { SentEvent } from '../support/sse-read.js'

/** Anthropic's answer, as far as these tests read it. */
interface Message {
  id: string
  type: 'message'
  role: 'assistant'
  model: string
  content: Record<string, unknown>[]
  stop_reason: string | null
  stop_sequence: string | null
  usage: { input_tokens: number; output_tokens: number }
}

/** One streamed event's data, typed by its `type`. */
type StreamEvent = { type: string; index?: number } & Record<string, unknown>

/** The events' data, each checked to carry its event's name as its type. */
function dataOf(events: SentEvent[]): StreamEvent[] {
  return events.map(({ event, data }) => {
    const parsed = JSON.parse(data) as StreamEvent
    expect(parsed.type).toBe(event)
    return parsed
  })
}

/** A stream's message put together the way Anthropic's SDK does, from message_start to message_stop. */
function assemble(events: StreamEvent[]): Message {
  expect(events[0]?.type).toBe('message_start')
  expect(events.at(-1)?.type).toBe('message_stop')
  const message = structuredClone((events[0] as unknown as { message: Message }).message)
  const partial = new Map<number, string>()
  for (const event of events.slice(1, -1)) {
    const index = event.index ?? -1
    if (event.type === 'content_block_start') {
      expect(index).toBe(message.content.length)
      message.content.push({ ...(event.content_block as Record<string, unknown>) })
    } else if (event.type === 'content_block_delta') {
      const block = message.content[index]!
      const delta = event.delta as { type: string; text?: string; partial_json?: string }
      if (delta.type === 'text_delta') block.text = `${block.text as string}${delta.text}`
      else if (delta.type === 'input_json_delta') partial.set(index, (partial.get(index) ?? '') + delta.partial_json)
      else throw new Error(`unexpected delta ${delta.type}`)
    } else if (event.type === 'content_block_stop') {
      const json = partial.get(index)
      if (json !== undefined) message.content[index]!.input = JSON.parse(json)
    } else if (event.type === 'message_delta') {
      Object.assign(message, event.delta)
      message.usage = { ...message.usage, ...(event.usage as object) }
    } else expect(event.type).toBe('ping')
  }
  return message
}

describe("Anthropic's Messages API on the LLM server", () => {
  let server: LlmServer

  beforeAll(async () => {
    server = await startLlmServer()
  })
  afterAll(async () => {
    await server?.stop()
  })

  const HEADERS = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': 'test-key' }
  /** POST /v1/messages with Anthropic's headers (`headers` replaces them), `max_tokens` unless `body` says. */
  const post = (body: Record<string, unknown>, headers: Record<string, string> = HEADERS, init: RequestInit = {}) =>
    fetch(`${server.origin}/v1/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ max_tokens: 1024, ...body }),
      ...init,
    })
  const ask = (model: string, content: unknown = 'hi', extra: Record<string, unknown> = {}) =>
    post({ model, messages: [{ role: 'user', content }], ...extra })
  const answerOf = async (model: string, content?: unknown): Promise<Message> => {
    const res = await ask(model, content)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    return (await res.json()) as Message
  }
  const streamOf = async (model: string, content?: unknown): Promise<StreamEvent[]> => {
    const res = await ask(model, content, { stream: true })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    return dataOf(sentEvents(await res.text()))
  }
  const admin = (path: string, model: string, method = 'GET', body?: unknown) =>
    fetch(`${server.origin}${path}?model=${encodeURIComponent(model)}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  const requests = async (model: string): Promise<LlmRequestRecord[]> =>
    ((await (await admin('/__requests', model)).json()) as { requests: LlmRequestRecord[] }).requests
  const reset = async (model: string) => expect((await admin('/__reset', model, 'POST')).status).toBe(200)
  const script = async (model: string, answers: ScriptedAnswer[]) =>
    expect((await admin('/__script', model, 'POST', { answers })).status).toBe(200)
  const errorOf = async (res: Response) => ({ status: res.status, body: (await res.json()) as unknown })

  it('answers a message echoing the last message, in all its fields', async () => {
    const res = await post({
      model: 'ok',
      system: 'be brief',
      messages: [
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'noted' },
        { role: 'user', content: 'hello there' },
      ],
    })
    expect(await res.json()).toEqual({
      id: MESSAGE_ID,
      type: 'message',
      role: 'assistant',
      model: 'ok',
      content: [{ type: 'text', text: 'echo: hello there' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 7, output_tokens: 3 },
    })
  })

  it("echoes text blocks and tool results' content, and nothing else", async () => {
    const content = [
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny, ' },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: '24°C' }] },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      { type: 'text', text: ' thanks' },
    ]
    expect((await answerOf('any-model', content)).content).toEqual([{ type: 'text', text: 'echo: sunny, 24°C thanks' }])
  })

  it('streams the echo as Anthropic does: message_start, a text block word by word, a ping, message_delta, message_stop', async () => {
    const res = await ask('ok', 'stream me please', { stream: true })
    const events = sentEvents(await res.text())
    for (const event of events) expect(event.event).toMatch(/^[a-z_]+$/)
    const message = { id: MESSAGE_ID, type: 'message', role: 'assistant', model: 'ok', content: [] }
    const text = (text: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })
    expect(dataOf(events)).toEqual([
      {
        type: 'message_start',
        message: { ...message, stop_reason: null, stop_sequence: null, usage: { input_tokens: 7, output_tokens: 1 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'ping' },
      text('echo: '),
      text('stream '),
      text('me '),
      text('please'),
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } },
      { type: 'message_stop' },
    ])
    expect(assemble(dataOf(events))).toEqual(await answerOf('ok', 'stream me please'))
  })

  it('answers a scripted tool call with tool_use blocks, and streams the same message', async () => {
    const answer: ScriptedAnswer = {
      content: 'Looking it up.',
      tool_calls: [
        { id: 'toolu_a', name: 'search', arguments: '{"q":"naïve café 🚀"}' },
        { id: 'toolu_b', name: 'noop', arguments: '{}' },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
    }
    await script('agent', [answer, answer])
    const plain = await answerOf('agent')
    expect(plain).toEqual({
      id: MESSAGE_ID,
      type: 'message',
      role: 'assistant',
      model: 'agent',
      content: [
        { type: 'text', text: 'Looking it up.' },
        { type: 'tool_use', id: 'toolu_a', name: 'search', input: { q: 'naïve café 🚀' } },
        { type: 'tool_use', id: 'toolu_b', name: 'noop', input: {} },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 11, output_tokens: 5 },
    })

    const events = await streamOf('agent')
    expect(assemble(events)).toEqual(plain)
    expect(events.filter((e) => e.type === 'ping')).toHaveLength(1)
    expect(events.filter((e) => e.type === 'content_block_start').map((e) => e.content_block)).toEqual([
      { type: 'text', text: '' },
      { type: 'tool_use', id: 'toolu_a', name: 'search', input: {} },
      { type: 'tool_use', id: 'toolu_b', name: 'noop', input: {} },
    ])
    // Each tool's input comes in pieces that are no JSON on their own, after an empty one as Anthropic's do.
    for (const [index, input] of [
      [1, '{"q":"naïve café 🚀"}'],
      [2, '{}'],
    ] as const) {
      const pieces = events
        .filter((e) => e.type === 'content_block_delta' && e.index === index)
        .map((e) => {
          const delta = e.delta as { type: string; partial_json: string }
          expect(delta.type).toBe('input_json_delta')
          return delta.partial_json
        })
      expect(pieces[0]).toBe('')
      expect(pieces.length).toBeGreaterThanOrEqual(3)
      expect(pieces.join('')).toBe(input)
      expect(pieces).not.toContain(input)
    }
    expect(events.at(-2)).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 5 },
    })
  })

  it('leaves the text block out of an answer of tool calls only, and maps finish reasons', async () => {
    const call = { id: 'toolu_1', name: 'f', arguments: '{"a":1}' }
    await script('agent-tools', [
      { tool_calls: [call] },
      { tool_calls: [call] },
      { content: 'cut', finish_reason: 'length' },
      { content: 'own', finish_reason: 'pause_turn' },
      { content: null },
    ])
    const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } }
    expect((await answerOf('agent-tools')).content).toEqual([toolUse])
    const streamed = assemble(await streamOf('agent-tools'))
    expect(streamed.content).toEqual([toolUse])
    expect(streamed.stop_reason).toBe('tool_use')
    expect((await answerOf('agent-tools')).stop_reason).toBe('max_tokens')
    expect((await answerOf('agent-tools')).stop_reason).toBe('pause_turn')
    // No text and nothing else: an empty text block, as a message has content.
    expect((await answerOf('agent-tools')).content).toEqual([{ type: 'text', text: '' }])
  })

  it('refuses scripted arguments that are no JSON object whole, but streams them as they are', async () => {
    await script('agent-args', [{ tool_calls: [{ id: 'toolu_1', name: 'f', arguments: '{"city": "Par' }] }])
    const refused = await errorOf(await ask('agent-args'))
    expect(refused.status).toBe(500)
    expect(refused.body).toMatchObject({ type: 'error', error: { type: 'api_error' } })
    expect(JSON.stringify(refused.body)).toContain('no JSON object')

    await script('agent-args', [{ tool_calls: [{ id: 'toolu_1', name: 'f', arguments: '{"city": "Par' }] }])
    const events = await streamOf('agent-args')
    const json = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => (e.delta as { partial_json: string }).partial_json)
      .join('')
    expect(json).toBe('{"city": "Par')
  })

  it('rate-limited-1 answers 429 rate_limit_error, then the message', async () => {
    await reset('rate-limited-1')
    expect(await errorOf(await ask('rate-limited-1'))).toEqual({
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: RATE_LIMIT_MESSAGE } },
    })
    expect((await answerOf('rate-limited-1')).content).toEqual([{ type: 'text', text: 'echo: hi' }])
  })

  it("answers each failure with Anthropic's status and error type", async () => {
    const error = (type: string, message: string) => ({ type: 'error', error: { type, message } })
    await reset('fail-1')
    await reset('overloaded-1')
    expect(await errorOf(await ask('fail-1'))).toEqual({ status: 500, body: error('api_error', FAIL_MESSAGE) })
    expect(await errorOf(await ask('overloaded-1'))).toEqual({
      status: 529,
      body: error('overloaded_error', OVERLOADED_MESSAGE),
    })
    expect((await ask('overloaded-1')).status).toBe(200)
    expect(await errorOf(await ask('missing-model'))).toEqual({
      status: 404,
      body: error('not_found_error', 'The model `missing-model` does not exist'),
    })

    await script('agent-errors', [
      { status: 401, error: 'invalid x-api-key' },
      { status: 403 },
      { status: 413 },
      { status: 422 },
      { status: 429 },
      { status: 503 },
      { status: 529 },
    ])
    const seen = []
    for (let i = 0; i < 8; i++) seen.push(await errorOf(await ask('agent-errors')))
    expect(seen).toEqual([
      { status: 401, body: error('authentication_error', 'invalid x-api-key') },
      { status: 403, body: error('permission_error', 'the script answers 403') },
      { status: 413, body: error('request_too_large', 'the script answers 413') },
      { status: 422, body: error('invalid_request_error', 'the script answers 422') },
      { status: 429, body: error('rate_limit_error', RATE_LIMIT_MESSAGE) },
      { status: 503, body: error('api_error', FAIL_MESSAGE) },
      { status: 529, body: error('overloaded_error', FAIL_MESSAGE) },
      { status: 500, body: error('api_error', 'script exhausted: 7 answers scripted') },
    ])
  })

  it('answers 400 invalid_request_error without anthropic-version or max_tokens, recording nothing', async () => {
    await reset('refused')
    const invalid = (message: string) => ({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message } },
    })
    const { 'anthropic-version': _version, ...unversioned } = HEADERS
    const messages = [{ role: 'user', content: 'x' }]
    expect(await errorOf(await post({ model: 'refused', messages }, unversioned))).toEqual(
      invalid('anthropic-version: header is required'),
    )
    expect(await errorOf(await post({ model: 'refused', messages, max_tokens: undefined }))).toEqual(
      invalid('max_tokens: Field required'),
    )
    expect(await errorOf(await post({ model: 'refused', messages, max_tokens: 0 }))).toEqual(
      invalid('max_tokens: Input should be a positive integer'),
    )
    expect(await errorOf(await post({ messages }))).toEqual(invalid('model: Field required'))
    expect(await requests('refused')).toEqual([])

    expect(await errorOf(await ask('bad-request'))).toEqual(invalid(BAD_REQUEST_MESSAGE))
    const notJson = await fetch(`${server.origin}/v1/messages`, { method: 'POST', headers: HEADERS, body: '{nope' })
    expect(await errorOf(notJson)).toMatchObject({ status: 400, body: { error: { type: 'invalid_request_error' } } })
    const get = await fetch(`${server.origin}/v1/messages`)
    expect(await errorOf(get)).toMatchObject({ status: 405, body: { type: 'error' } })
  })

  it('records the native body with x-api-key, anthropic-version and authorization', async () => {
    await reset('recorded')
    await ask('recorded', 'note me', { temperature: 0.5 })
    await post({ model: 'recorded', messages: [] }, { ...HEADERS, authorization: 'Bearer other', 'x-api-key': 'k2' })
    const { 'x-api-key': _key, ...keyless } = HEADERS
    await post({ model: 'recorded', messages: [] }, { ...keyless, 'anthropic-version': '2026-10-21' })
    const recorded = await requests('recorded')
    expect(recorded.map(({ headers, authorization }) => ({ headers, authorization }))).toEqual([
      { headers: { 'x-api-key': 'test-key', 'anthropic-version': '2023-06-01' }, authorization: null },
      { headers: { 'x-api-key': 'k2', 'anthropic-version': '2023-06-01' }, authorization: 'Bearer other' },
      { headers: { 'x-api-key': null, 'anthropic-version': '2026-10-21' }, authorization: null },
    ])
    expect(recorded[0]!.body).toEqual({
      max_tokens: 1024,
      model: 'recorded',
      messages: [{ role: 'user', content: 'note me' }],
      temperature: 0.5,
    })
  })

  it('stream-cut ends after the first word, without message_delta or message_stop', async () => {
    const { text, error } = await readToEnd(await ask('stream-cut', 'never finished', { stream: true }))
    expect(error).toBeInstanceOf(Error)
    expect(dataOf(sentEvents(text)).map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
    ])
    const plain = await readToEnd(await ask('stream-cut'))
    expect(plain.error).toBeInstanceOf(Error)
    expect(() => JSON.parse(plain.text)).toThrow()
  })

  it('stream-stall sends message_start, then holds the stream', async () => {
    const event = await firstEvent(await ask('stream-stall', 'x', { stream: true }))
    expect(event.event).toBe('message_start')
  })

  it('timeout-1 holds the request until the client leaves, then answers', async () => {
    await reset('timeout-1')
    const abort = new AbortController()
    const held = post({ model: 'timeout-1', messages: [] }, HEADERS, { signal: abort.signal })
    await server.arrived('timeout-1')
    abort.abort()
    await expect(held).rejects.toThrow()
    expect((await answerOf('timeout-1')).model).toBe('timeout-1')
  })

  it('garbage-1 and malformed-1 answer 200 with no message', async () => {
    await reset('garbage-1')
    await reset('malformed-1')
    expect(await (await ask('garbage-1')).json()).toEqual(GARBAGE)
    const malformed = await (await ask('malformed-1')).text()
    expect(malformed.startsWith('{"id": "msg_test"')).toBe(true)
    expect(() => JSON.parse(malformed)).toThrow()
  })

  it('big-N answers N bytes of text, whole or streamed, and reject-big-N a 400 of N bytes', async () => {
    expect((await answerOf('big-200000')).content).toEqual([{ type: 'text', text: 'x'.repeat(200000) }])
    const streamed = assemble(await streamOf('big-150000'))
    expect(streamed.content).toEqual([{ type: 'text', text: 'x'.repeat(150000) }])
    const idle = (await (await admin('/__idle', 'big-150000')).json()) as LlmIdle
    expect(idle).toEqual({ cutShort: 0 })
    const rejected = await ask('reject-big-100000')
    expect(rejected.status).toBe(400)
    const body = (await rejected.json()) as { type: string; error: { type: string; message: string } }
    expect(body.type).toBe('error')
    expect(body.error.message).toHaveLength(100000)
  })
})
