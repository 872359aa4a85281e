import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import {
  startLlmServer,
  BAD_REQUEST_MESSAGE,
  FAIL_MESSAGE,
  GARBAGE,
  OVERLOADED_MESSAGE,
  RATE_LIMIT_MESSAGE,
  RESPONSE_ID,
} from '../support/llm-server.js'
import type { LlmIdle, LlmRequestRecord, LlmServer, ScriptedAnswer } from '../support/llm-server.js'
import { firstEvent, readToEnd, sentEvents } from '../support/sse-read.js'

type Part = Record<string, unknown>

/** Gemini's answer, as far as these tests read it. */
interface GenerateContentResponse {
  candidates: { content: { parts: Part[]; role: string }; finishReason?: string; index: number }[]
  usageMetadata?: { promptTokenCount: number; candidatesTokenCount: number; totalTokenCount: number }
  modelVersion: string
  responseId: string
}

/**
 * A stream's responses put together: the parts in order (text run together, as Google's SDK reads `text`), the
 * finish reason and usage of the last, which alone has them.
 */
function assemble(events: GenerateContentResponse[]): GenerateContentResponse {
  const parts: Part[] = []
  events.forEach((event, i) => {
    const last = i === events.length - 1
    const [candidate] = event.candidates
    expect(event.candidates).toHaveLength(1)
    expect(candidate?.content.role).toBe('model')
    expect(candidate?.finishReason !== undefined, `finishReason on event ${i}`).toBe(last)
    expect(event.usageMetadata !== undefined, `usageMetadata on event ${i}`).toBe(last)
    for (const part of candidate?.content.parts ?? []) {
      const previous = parts.at(-1)
      if (typeof part.text === 'string' && typeof previous?.text === 'string') previous.text += part.text
      else parts.push({ ...part })
    }
  })
  const last = events.at(-1)!
  return { ...last, candidates: [{ ...last.candidates[0]!, content: { parts, role: 'model' } }] }
}

describe("Gemini's generateContent and streamGenerateContent on the LLM server", () => {
  let server: LlmServer

  beforeAll(async () => {
    server = await startLlmServer()
  })
  afterAll(async () => {
    await server?.stop()
  })

  const HEADERS = { 'content-type': 'application/json', 'x-goog-api-key': 'test-key' }
  /** POST one of the model's methods, the model percent-encoded in the path; `alt=sse` for the stream. */
  const post = (
    model: string,
    body: Record<string, unknown>,
    {
      stream = false,
      headers = HEADERS,
      init = {},
    }: { stream?: boolean; headers?: Record<string, string>; init?: RequestInit } = {},
  ) =>
    fetch(
      `${server.origin}/v1beta/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      { method: 'POST', headers, body: JSON.stringify(body), ...init },
    )
  const ask = (model: string, text = 'hi', stream = false) =>
    post(model, { contents: [{ role: 'user', parts: [{ text }] }] }, { stream })
  const answerOf = async (model: string, text?: string): Promise<GenerateContentResponse> => {
    const res = await ask(model, text)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    return (await res.json()) as GenerateContentResponse
  }
  const streamOf = async (model: string, text?: string): Promise<GenerateContentResponse[]> => {
    const res = await ask(model, text, true)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const body = await res.text()
    // Google ends each event with CRLFs, and the stream with its last event: there is no [DONE].
    expect(body.endsWith('}\r\n\r\n')).toBe(true)
    return sentEvents(body).map(({ event, data }) => {
      expect(event).toBeUndefined()
      return JSON.parse(data) as GenerateContentResponse
    })
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
  const googleError = (code: number, status: string, message: string) => ({
    status: code,
    body: { error: { code, message, status } },
  })

  it('answers a GenerateContentResponse echoing the last content, in all its fields', async () => {
    const res = await post('ok', {
      systemInstruction: { parts: [{ text: 'be brief' }] },
      contents: [
        { role: 'user', parts: [{ text: 'first' }] },
        { role: 'model', parts: [{ text: 'noted' }] },
        { role: 'user', parts: [{ text: 'hello ' }, { text: 'there' }] },
      ],
    })
    expect(await res.json()).toEqual({
      candidates: [
        { content: { parts: [{ text: 'echo: hello there' }], role: 'model' }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 },
      modelVersion: 'ok',
      responseId: RESPONSE_ID,
    })
  })

  it("echoes function responses' JSON, and reads a percent-encoded model from the path", async () => {
    const res = await post('tuned/one:two', {
      contents: [
        { role: 'user', parts: [{ functionResponse: { id: 'c1', name: 'weather', response: { temp: 24 } } }] },
      ],
    })
    const answer = (await res.json()) as GenerateContentResponse
    expect(answer.modelVersion).toBe('tuned/one:two')
    expect(answer.candidates[0]?.content.parts).toEqual([{ text: 'echo: {"temp":24}' }])
    expect(await requests('tuned/one:two')).toHaveLength(1)
  })

  it('streams the echo word by word, the last event with the finish reason and usage', async () => {
    const events = await streamOf('ok', 'stream me please')
    const event = (text: string) => ({
      candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }],
      modelVersion: 'ok',
      responseId: RESPONSE_ID,
    })
    expect(events).toEqual([
      event('echo: '),
      event('stream '),
      event('me '),
      {
        candidates: [{ content: { parts: [{ text: 'please' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 },
        modelVersion: 'ok',
        responseId: RESPONSE_ID,
      },
    ])
    expect(assemble(events)).toEqual(await answerOf('ok', 'stream me please'))
  })

  it('answers a scripted tool call with functionCall parts and STOP, and streams the same answer', async () => {
    const answer: ScriptedAnswer = {
      content: 'Looking it up.',
      tool_calls: [
        { id: 'call_a', name: 'search', arguments: '{"q":"naïve café 🚀"}' },
        { id: 'call_b', name: 'noop', arguments: '{}' },
      ],
      usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
    }
    await script('agent', [answer, answer])
    const plain = await answerOf('agent')
    expect(plain).toEqual({
      candidates: [
        {
          content: {
            parts: [
              { text: 'Looking it up.' },
              { functionCall: { id: 'call_a', name: 'search', args: { q: 'naïve café 🚀' } } },
              { functionCall: { id: 'call_b', name: 'noop', args: {} } },
            ],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 5, totalTokenCount: 16 },
      modelVersion: 'agent',
      responseId: RESPONSE_ID,
    })

    const events = await streamOf('agent')
    expect(assemble(events)).toEqual(plain)
    // The text word by word, then each call whole in an event of its own.
    expect(events.map((e) => e.candidates[0]?.content.parts)).toEqual([
      [{ text: 'Looking ' }],
      [{ text: 'it ' }],
      [{ text: 'up.' }],
      [{ functionCall: { id: 'call_a', name: 'search', args: { q: 'naïve café 🚀' } } }],
      [{ functionCall: { id: 'call_b', name: 'noop', args: {} } }],
    ])
  })

  it('leaves the text part out of an answer of calls only, and maps finish reasons', async () => {
    const call = { id: 'call_1', name: 'f', arguments: '{"a":1}' }
    await script('agent-tools', [
      { tool_calls: [call] },
      { tool_calls: [call] },
      { content: 'cut', finish_reason: 'length' },
      { content: 'own', finish_reason: 'RECITATION' },
      { content: '' },
    ])
    const functionCall = { functionCall: { id: 'call_1', name: 'f', args: { a: 1 } } }
    expect((await answerOf('agent-tools')).candidates[0]?.content.parts).toEqual([functionCall])
    const streamed = await streamOf('agent-tools')
    expect(streamed).toHaveLength(1)
    expect(assemble(streamed).candidates[0]).toEqual({
      content: { parts: [functionCall], role: 'model' },
      finishReason: 'STOP',
      index: 0,
    })
    expect((await answerOf('agent-tools')).candidates[0]?.finishReason).toBe('MAX_TOKENS')
    expect((await answerOf('agent-tools')).candidates[0]?.finishReason).toBe('RECITATION')
    expect((await answerOf('agent-tools')).candidates[0]?.content.parts).toEqual([{ text: '' }])
  })

  it('refuses scripted arguments that are no JSON object with a 500, streamed or not', async () => {
    const bad = { tool_calls: [{ id: 'c', name: 'f', arguments: '["not", "an object"]' }] }
    await script('agent-args', [bad, bad])
    for (const stream of [false, true]) {
      const { status, body } = await errorOf(await ask('agent-args', 'x', stream))
      expect(status).toBe(500)
      expect(body).toMatchObject({ error: { code: 500, status: 'INTERNAL' } })
      expect(JSON.stringify(body)).toContain('no JSON object')
    }
  })

  it('rate-limited-1 answers 429 RESOURCE_EXHAUSTED, then the answer', async () => {
    await reset('rate-limited-1')
    expect(await errorOf(await ask('rate-limited-1'))).toEqual(
      googleError(429, 'RESOURCE_EXHAUSTED', RATE_LIMIT_MESSAGE),
    )
    expect((await answerOf('rate-limited-1')).candidates[0]?.content.parts).toEqual([{ text: 'echo: hi' }])
  })

  it("answers each failure with Google's code and status", async () => {
    await reset('fail-1')
    await reset('overloaded-1')
    expect(await errorOf(await ask('fail-1', 'x', true))).toEqual(googleError(500, 'INTERNAL', FAIL_MESSAGE))
    expect(await errorOf(await ask('overloaded-1'))).toEqual(googleError(503, 'UNAVAILABLE', OVERLOADED_MESSAGE))
    expect((await ask('overloaded-1')).status).toBe(200)
    expect(await errorOf(await ask('missing-model'))).toEqual(
      googleError(404, 'NOT_FOUND', 'The model `missing-model` does not exist'),
    )
    await script('agent-errors', [{ status: 401 }, { status: 403 }, { status: 429, error: 'quota' }, { status: 504 }])
    const seen = []
    for (let i = 0; i < 5; i++) seen.push(await errorOf(await ask('agent-errors')))
    expect(seen).toEqual([
      googleError(401, 'UNAUTHENTICATED', 'the script answers 401'),
      googleError(403, 'PERMISSION_DENIED', 'the script answers 403'),
      googleError(429, 'RESOURCE_EXHAUSTED', 'quota'),
      googleError(504, 'DEADLINE_EXCEEDED', FAIL_MESSAGE),
      googleError(500, 'INTERNAL', 'script exhausted: 4 answers scripted'),
    ])
  })

  it("answers 400 INVALID_ARGUMENT in Google's shape, and 404 NOT_FOUND off its routes", async () => {
    expect(await errorOf(await ask('bad-request'))).toEqual(googleError(400, 'INVALID_ARGUMENT', BAD_REQUEST_MESSAGE))
    const notJson = await fetch(`${server.origin}/v1beta/models/ok:generateContent`, { method: 'POST', body: '{nope' })
    expect(await errorOf(notJson)).toMatchObject({
      status: 400,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT' } },
    })

    await reset('sse-only')
    const jsonArray = await fetch(`${server.origin}/v1beta/models/sse-only:streamGenerateContent`, {
      method: 'POST',
      body: '{"contents": []}',
    })
    expect(await errorOf(jsonArray)).toMatchObject({ status: 400, body: { error: { status: 'INVALID_ARGUMENT' } } })
    expect(await requests('sse-only')).toEqual([])

    const count = await fetch(`${server.origin}/v1beta/models/ok:countTokens`, { method: 'POST', body: '{}' })
    expect(await errorOf(count)).toMatchObject({ status: 404, body: { error: { code: 404, status: 'NOT_FOUND' } } })
    const get = await fetch(`${server.origin}/v1beta/models/ok:generateContent`)
    expect(await errorOf(get)).toMatchObject({ status: 405, body: { error: { code: 405 } } })
  })

  it('records the native body with x-goog-api-key and authorization', async () => {
    await reset('recorded')
    await post('recorded', {
      contents: [{ role: 'user', parts: [{ text: 'note me' }] }],
      generationConfig: { temperature: 0.5 },
    })
    await post('recorded', { contents: [] }, { stream: true, headers: { authorization: 'Bearer token' } })
    const recorded = await requests('recorded')
    expect(recorded.map(({ headers, authorization }) => ({ headers, authorization }))).toEqual([
      { headers: { 'x-goog-api-key': 'test-key' }, authorization: null },
      { headers: { 'x-goog-api-key': null }, authorization: 'Bearer token' },
    ])
    expect(recorded[0]!.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'note me' }] }],
      generationConfig: { temperature: 0.5 },
    })
  })

  it('stream-cut ends after the first word, without the event that finishes', async () => {
    const { text, error } = await readToEnd(await ask('stream-cut', 'never finished', true))
    expect(error).toBeInstanceOf(Error)
    const events = sentEvents(text).map(({ data }) => JSON.parse(data) as GenerateContentResponse)
    expect(events.map((e) => e.candidates[0])).toEqual([
      { content: { parts: [{ text: 'echo: ' }], role: 'model' }, index: 0 },
    ])
    // An empty echo is one word: cut before it all the same, as its event is the last.
    const empty = await readToEnd(await ask('stream-cut', '', true))
    expect(empty.error).toBeInstanceOf(Error)
    expect(sentEvents(empty.text)).toEqual([])
    const plain = await readToEnd(await ask('stream-cut'))
    expect(plain.error).toBeInstanceOf(Error)
    expect(() => JSON.parse(plain.text)).toThrow()
  })

  it('stream-stall sends the first word, then holds the stream', async () => {
    const event = await firstEvent(await ask('stream-stall', 'x', true))
    expect((JSON.parse(event.data) as GenerateContentResponse).candidates[0]?.content.parts).toEqual([
      { text: 'echo: ' },
    ])
  })

  it('timeout-1 holds the request until the client leaves, then answers', async () => {
    await reset('timeout-1')
    const abort = new AbortController()
    const held = post('timeout-1', { contents: [] }, { init: { signal: abort.signal } })
    await server.arrived('timeout-1')
    abort.abort()
    await expect(held).rejects.toThrow()
    expect((await answerOf('timeout-1')).modelVersion).toBe('timeout-1')
  })

  it('garbage-1 and malformed-1 answer 200 with no GenerateContentResponse', async () => {
    await reset('garbage-1')
    await reset('malformed-1')
    expect(await (await ask('garbage-1')).json()).toEqual(GARBAGE)
    const malformed = await (await ask('malformed-1', 'x', true)).text()
    expect(malformed.startsWith('{"candidates": [')).toBe(true)
    expect(() => JSON.parse(malformed)).toThrow()
  })

  it('big-N answers N bytes of text, whole or streamed, and reject-big-N a 400 of N bytes', async () => {
    expect((await answerOf('big-200000')).candidates[0]?.content.parts).toEqual([{ text: 'x'.repeat(200000) }])
    const streamed = assemble(await streamOf('big-150000'))
    expect(streamed.candidates[0]?.content.parts).toEqual([{ text: 'x'.repeat(150000) }])
    expect((await (await admin('/__idle', 'big-150000')).json()) as LlmIdle).toEqual({ cutShort: 0 })
    const rejected = await ask('reject-big-100000')
    expect(rejected.status).toBe(400)
    const body = (await rejected.json()) as { error: { code: number; status: string; message: string } }
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' })
    expect(body.error.message).toHaveLength(100000)
  })
})
