import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
} from 'openai'
import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import {
  startLlmServer,
  echoWords,
  BAD_REQUEST_MESSAGE,
  COMPLETION_ID,
  CREATED,
  FAIL_MESSAGE,
  GARBAGE,
  RATE_LIMIT_MESSAGE,
  SYSTEM_FINGERPRINT,
  USAGE,
} from '../support/llm-server.js'
import type { LlmIdle, LlmRequestRecord, LlmServer, ScriptedAnswer } from '../support/llm-server.js'

describe('OpenAI-compatible LLM server', () => {
  let server: LlmServer
  let client: OpenAI

  beforeAll(async () => {
    server = await startLlmServer()
    client = new OpenAI({ baseURL: server.url, apiKey: 'test-key', maxRetries: 0 })
  })
  afterAll(async () => {
    await server?.stop()
  })

  const admin = (path: string, model: string, method = 'GET') =>
    fetch(new URL(`${path}?model=${encodeURIComponent(model)}`, server.url), { method })
  const requests = async (model: string): Promise<LlmRequestRecord[]> => {
    const res = await admin('/__requests', model)
    expect(res.status).toBe(200)
    return ((await res.json()) as { requests: LlmRequestRecord[] }).requests
  }
  const reset = async (model: string): Promise<void> => {
    const res = await admin('/__reset', model, 'POST')
    expect(res.status).toBe(200)
  }
  const scriptRaw = (model: string, body: string) =>
    fetch(new URL(`/__script?model=${encodeURIComponent(model)}`, server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
  const script = async (model: string, answers: ScriptedAnswer[], repeatLast?: boolean): Promise<void> => {
    const res = await scriptRaw(model, JSON.stringify({ answers, repeat_last: repeatLast }))
    expect(res.status).toBe(200)
  }
  const ask = (model: string, content = 'hi', options?: OpenAI.RequestOptions) =>
    client.chat.completions.create({ model, messages: [{ role: 'user', content }] }, options)
  /** The rejection of a promise that must reject. */
  const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
    try {
      await promise
    } catch (error) {
      return error
    }
    throw new Error('expected a rejection')
  }

  it('serves its base URL under /v1', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
  })

  it('round-trips a completion with all its fields', async () => {
    const completion = await client.chat.completions.create({
      model: 'ok',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'hello there' },
      ],
    })
    expect(completion).toEqual({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1700000000,
      model: 'ok',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'echo: hello there' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      system_fingerprint: 'fp_test',
    })
  })

  it('answers an unknown model like ok, echoing the model and text parts', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-something-else',
      messages: [
        { role: 'user', content: 'first' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'two ' },
            { type: 'text', text: 'parts' },
          ],
        },
      ],
    })
    expect(completion.model).toBe('gpt-something-else')
    expect(completion.choices[0]?.message.content).toBe('echo: two parts')
  })

  it('fail-2 fails twice with 500, then answers; three requests recorded in order', async () => {
    await reset('fail-2')
    for (const content of ['one', 'two']) {
      const error = await rejectionOf(ask('fail-2', content))
      expect(error).toBeInstanceOf(InternalServerError)
      expect((error as APIError).status).toBe(500)
      expect((error as APIError).error).toEqual({ message: FAIL_MESSAGE, type: 'server_error' })
    }
    const completion = await ask('fail-2', 'three')
    expect(completion.choices[0]?.message.content).toBe('echo: three')
    expect(completion.model).toBe('fail-2')

    const recorded = await requests('fail-2')
    expect(recorded.map((r) => (r.body.messages as { content: string }[])[0]?.content)).toEqual(['one', 'two', 'three'])
    expect(recorded[0]!.at).toBeLessThan(recorded[1]!.at)
    expect(recorded[1]!.at).toBeLessThan(recorded[2]!.at)
    // Later requests keep answering.
    expect((await ask('fail-2')).choices[0]?.message.content).toBe('echo: hi')
  })

  it('counts failures per exact model string', async () => {
    await reset('fail-1')
    await reset('fail-10')
    await expect(ask('fail-1')).rejects.toBeInstanceOf(InternalServerError)
    await expect(ask('fail-10')).rejects.toBeInstanceOf(InternalServerError)
    await expect(ask('fail-1')).resolves.toMatchObject({ model: 'fail-1' })
    await expect(ask('fail-10')).rejects.toBeInstanceOf(InternalServerError)
  })

  it('rate-limited-N answers 429 N times', async () => {
    await reset('rate-limited-1')
    const error = await rejectionOf(ask('rate-limited-1'))
    expect(error).toBeInstanceOf(RateLimitError)
    expect((error as APIError).status).toBe(429)
    expect((error as APIError).message).toContain(RATE_LIMIT_MESSAGE)
    await expect(ask('rate-limited-1')).resolves.toMatchObject({ model: 'rate-limited-1' })
  })

  it('garbage-N answers 200 with a body that is no chat completion N times', async () => {
    await reset('garbage-1')
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'garbage-1', messages: [{ role: 'user', content: 'x' }] }),
    })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(GARBAGE)
    expect((await ask('garbage-1')).choices[0]?.message.content).toBe('echo: hi')

    await reset('garbage-1')
    // The SDK does not validate: the garbage comes back as the "completion".
    expect(await ask('garbage-1')).toEqual({ unexpected: true })
  })

  it('missing-model answers 404 model_not_found', async () => {
    const error = await rejectionOf(ask('missing-model'))
    expect(error).toBeInstanceOf(NotFoundError)
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).status).toBe(404)
    expect((error as APIError).code).toBe('model_not_found')
    expect((error as APIError).type).toBe('invalid_request_error')
    expect((error as APIError).error).toEqual({
      message: 'The model `missing-model` does not exist',
      type: 'invalid_request_error',
      code: 'model_not_found',
    })
  })

  it('bad-request answers 400 with a message', async () => {
    const error = await rejectionOf(ask('bad-request'))
    expect(error).toBeInstanceOf(BadRequestError)
    expect((error as APIError).status).toBe(400)
    expect((error as APIError).message).toContain(BAD_REQUEST_MESSAGE)
  })

  it('streams the role, then each word, then stop, and ends', async () => {
    const stream = await client.chat.completions.create({
      model: 'ok',
      messages: [{ role: 'user', content: 'stream me please' }],
      stream: true,
    })
    const chunks: ChatCompletionChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)

    const words = ['echo: ', 'stream ', 'me ', 'please']
    expect(echoWords('echo: stream me please')).toEqual(words)
    const frame = (delta: Record<string, unknown>, finish_reason: string | null) => ({
      id: 'chatcmpl-test',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'ok',
      choices: [{ index: 0, delta, finish_reason }],
    })
    expect(chunks).toEqual([
      frame({ role: 'assistant', content: '' }, null),
      ...words.map((content) => frame({ content }, null)),
      frame({}, 'stop'),
    ])
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('echo: stream me please')
  })

  it('frames the stream as server-sent events ending in [DONE]', async () => {
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'ok', stream: true, messages: [{ role: 'user', content: 'a b' }] }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const events = (await res.text()).split('\n\n')
    expect(events.pop()).toBe('')
    expect(events.at(-1)).toBe('data: [DONE]')
    expect(events).toHaveLength(1 + 3 + 1 + 1) // role, `echo: ` `a ` `b`, stop, [DONE]
    for (const event of events.slice(0, -1)) {
      expect(event.startsWith('data: {')).toBe(true)
      expect(JSON.parse(event.slice('data: '.length)).object).toBe('chat.completion.chunk')
    }
  })

  it('adds a usage chunk when stream_options.include_usage is set', async () => {
    const stream = await client.chat.completions.create({
      model: 'ok',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    const chunks: ChatCompletionChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)
    const last = chunks.at(-1)!
    expect(last.choices).toEqual([])
    expect(last.usage).toEqual(USAGE)
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true)
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop')
  })

  it('streams like ok after fail-N has failed', async () => {
    await reset('fail-1')
    await expect(
      client.chat.completions.create({ model: 'fail-1', messages: [{ role: 'user', content: 'x' }], stream: true }),
    ).rejects.toBeInstanceOf(InternalServerError)
    const stream = await client.chat.completions.create({
      model: 'fail-1',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    })
    const chunks: ChatCompletionChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop')
    expect(chunks.every((c) => c.model === 'fail-1')).toBe(true)
  })

  it('stream-cut rejects mid-iteration after two chunks', async () => {
    const stream = await client.chat.completions.create({
      model: 'stream-cut',
      messages: [{ role: 'user', content: 'never finished' }],
      stream: true,
    })
    const chunks: ChatCompletionChunk[] = []
    const error = await rejectionOf(
      (async () => {
        for await (const chunk of stream) chunks.push(chunk)
      })(),
    )
    expect(error).toBeInstanceOf(Error)
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '' }, { content: 'echo: ' }])
  })

  it('stream-cut without streaming cuts the JSON body', async () => {
    await expect(ask('stream-cut')).rejects.toBeInstanceOf(Error)
  })

  it('stream-stall sends one chunk, then nothing until the client aborts', async () => {
    const abort = new AbortController()
    const stream = await client.chat.completions.create(
      { model: 'stream-stall', messages: [{ role: 'user', content: 'x' }], stream: true },
      { signal: abort.signal },
    )
    const chunks: ChatCompletionChunk[] = []
    const started = performance.now()
    setTimeout(() => abort.abort(), 200)
    // The SDK ends an aborted stream quietly.
    for await (const chunk of stream) chunks.push(chunk)
    expect(performance.now() - started).toBeGreaterThanOrEqual(150)
    expect(abort.signal.aborted).toBe(true)
    expect(chunks.map((c) => c.choices[0]?.delta)).toEqual([{ role: 'assistant', content: '' }])
  })

  it('timeout-1 hangs until the client times out, then answers', async () => {
    await reset('timeout-1')
    const started = performance.now()
    const error = await rejectionOf(ask('timeout-1', 'hi', { timeout: 200 }))
    expect(error).toBeInstanceOf(APIConnectionTimeoutError)
    expect(performance.now() - started).toBeGreaterThanOrEqual(150)
    await expect(ask('timeout-1', 'hi', { timeout: 2000 })).resolves.toMatchObject({ model: 'timeout-1' })
  })

  it('timeout-1 hangs until an AbortSignal aborts', async () => {
    await reset('timeout-1')
    const error = await rejectionOf(ask('timeout-1', 'hi', { signal: AbortSignal.timeout(150) }))
    expect(error).toBeInstanceOf(APIUserAbortError)
    expect((await requests('timeout-1')).length).toBe(1)
    await expect(ask('timeout-1')).resolves.toMatchObject({ model: 'timeout-1' })
  })

  it('records the authorization header and the body, and reset forgets them', async () => {
    await reset('recorded')
    expect(await requests('recorded')).toEqual([])
    await client.chat.completions.create({
      model: 'recorded',
      messages: [{ role: 'user', content: 'note me' }],
      temperature: 0.5,
    })
    const other = new OpenAI({ baseURL: server.url, apiKey: 'other-key', maxRetries: 0 })
    await other.chat.completions.create({ model: 'recorded', messages: [{ role: 'user', content: 'again' }] })
    await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'recorded', messages: [] }),
    })

    const recorded = await requests('recorded')
    expect(recorded.map((r) => r.authorization)).toEqual(['Bearer test-key', 'Bearer other-key', null])
    expect(recorded[0]!.body).toEqual({
      model: 'recorded',
      messages: [{ role: 'user', content: 'note me' }],
      temperature: 0.5,
    })
    expect(typeof recorded[0]!.at).toBe('number')
    // Other models' records are their own.
    expect((await requests('recorded-elsewhere')).length).toBe(0)

    await reset('recorded')
    expect(await requests('recorded')).toEqual([])
  })

  it('reset restarts a failing count', async () => {
    await reset('fail-1')
    await expect(ask('fail-1')).rejects.toBeInstanceOf(InternalServerError)
    await expect(ask('fail-1')).resolves.toMatchObject({ model: 'fail-1' })
    await reset('fail-1')
    await expect(ask('fail-1')).rejects.toBeInstanceOf(InternalServerError)
    expect((await requests('fail-1')).length).toBe(1)
  })

  it('refuses bad admin calls and requests', async () => {
    expect((await fetch(new URL('/__requests', server.url))).status).toBe(400)
    expect((await admin('/__nothing', 'ok')).status).toBe(404)
    const notJson = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{nope' })
    expect(notJson.status).toBe(400)
    const noModel = await fetch(`${server.url}/chat/completions`, { method: 'POST', body: '{"messages":[]}' })
    expect(noModel.status).toBe(400)
    expect((await fetch(`${server.url}/models`)).status).toBe(404)
  })

  it('big-N answers N bytes of content, in one completion or in chunks ending with [DONE]', async () => {
    const completion = await ask('big-200000')
    expect(completion.choices[0]?.message.content).toBe('x'.repeat(200000))
    const stream = await client.chat.completions.create({
      model: 'big-150000',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    })
    let content = ''
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? ''
    expect(content).toBe('x'.repeat(150000))
    const idle = (await (await admin('/__idle', 'big-200000')).json()) as LlmIdle
    expect(idle).toEqual({ cutShort: 0 })
  })

  it('big-N stops writing when the client leaves, and /__idle waits for that', async () => {
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'big-100000000', messages: [] }),
    })
    expect(res.headers.get('content-length')).toBeNull()
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    await reader.cancel()
    expect(await (await admin('/__idle', 'big-100000000')).json()).toEqual({ cutShort: 1 })
  })

  it('stops while requests hang and streams stall', async () => {
    const own = await startLlmServer()
    const ownClient = new OpenAI({ baseURL: own.url, apiKey: 'k', maxRetries: 0 })
    const hanging = rejectionOf(
      ownClient.chat.completions.create({ model: 'timeout-1', messages: [{ role: 'user', content: 'x' }] }),
    )
    const stream = await ownClient.chat.completions.create({
      model: 'stream-stall',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    })
    const iterated = rejectionOf(
      (async () => {
        for await (const chunk of stream) void chunk
      })(),
    )
    // Both requests have arrived (the stream's, since its headers came back).
    await own.arrived('timeout-1')
    await own.stop()
    expect(await hanging).toBeInstanceOf(APIConnectionError)
    expect(await iterated).toBeInstanceOf(Error)
  })

  it('a scripted model asks for a tool, then answers', async () => {
    await script('agent', [
      { tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { content: 'Sunny in Paris.' },
    ])
    expect(await ask('agent', 'weather in Paris?')).toEqual({
      id: COMPLETION_ID,
      object: 'chat.completion',
      created: CREATED,
      model: 'agent',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: USAGE,
      system_fingerprint: SYSTEM_FINGERPRINT,
    })
    const answer = await ask('agent', 'sunny, 24°C')
    expect(answer.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'Sunny in Paris.' }, finish_reason: 'stop', logprobs: null },
    ])
    expect((await requests('agent')).map((r) => (r.body.messages as { content: string }[])[0]?.content)).toEqual([
      'weather in Paris?',
      'sunny, 24°C',
    ])
  })

  it('streams a scripted answer the way OpenAI does, and the SDK reassembles it', async () => {
    const usage = { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 }
    const answer: ScriptedAnswer = {
      content: 'Looking it up.',
      tool_calls: [
        { id: 'call_a', name: 'search', arguments: '{"q":"naïve café 🚀"}' },
        { id: 'call_b', name: 'noop', arguments: '{}' },
      ],
      usage,
    }
    await script('agent-stream', [answer, answer])
    const plain = await ask('agent-stream')

    const stream = client.chat.completions.stream({
      model: 'agent-stream',
      messages: [{ role: 'user', content: 'find it' }],
      stream_options: { include_usage: true },
    })
    const chunks: ChatCompletionChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)
    const final = await stream.finalChatCompletion()
    expect(final.choices[0]?.message.tool_calls).toEqual(plain.choices[0]?.message.tool_calls)
    expect(final.choices[0]?.message.content).toBe('Looking it up.')
    expect(final.choices[0]?.finish_reason).toBe('tool_calls')
    expect(final.usage).toEqual(usage)

    const deltas = chunks.map((c) => c.choices[0]?.delta)
    const header = (index: number, id: string, name: string) => ({
      tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }],
    })
    const callA = deltas.findIndex((d) => d?.tool_calls?.[0]?.id === 'call_a')
    const callB = deltas.findIndex((d) => d?.tool_calls?.[0]?.id === 'call_b')
    expect(deltas.slice(0, callA)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Looking ' },
      { content: 'it ' },
      { content: 'up.' },
    ])
    expect(deltas[callA]).toEqual(header(0, 'call_a', 'search'))
    expect(deltas[callB]).toEqual(header(1, 'call_b', 'noop'))
    // Each call's arguments follow its header in two pieces or more, none of them the whole.
    for (const [from, to, index, args] of [
      [callA + 1, callB, 0, '{"q":"naïve café 🚀"}'],
      [callB + 1, deltas.length - 2, 1, '{}'],
    ] as const) {
      const pieces = deltas.slice(from, to).map((d) => {
        expect(d).toEqual({ tool_calls: [{ index, function: { arguments: expect.any(String) } }] })
        return d?.tool_calls?.[0]?.function?.arguments ?? ''
      })
      expect(pieces.length).toBeGreaterThanOrEqual(2)
      expect(pieces.join('')).toBe(args)
      expect(pieces).not.toContain(args)
    }
    expect(chunks.at(-2)?.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'tool_calls' }])
    expect(chunks.at(-1)?.choices).toEqual([])
    expect(chunks.at(-1)?.usage).toEqual(usage)
  })

  it('opens a streamed tool-call answer without content with a null content', async () => {
    await script('agent-stream-tools', [{ tool_calls: [{ id: 'call_1', name: 'f', arguments: '{"a":1}' }] }])
    const stream = await client.chat.completions.create({
      model: 'agent-stream-tools',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    })
    const chunks: ChatCompletionChunk[] = []
    for await (const chunk of stream) chunks.push(chunk)
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: null })
    expect(chunks[1]?.choices[0]?.delta).toEqual({
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
    })
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls')
  })

  it('passes tool-call arguments on as scripted: invalid JSON, then valid', async () => {
    const call = (args: string) => ({ id: 'call_1', name: 'lookup', arguments: args })
    await script('agent-json', [{ tool_calls: [call('{"city": "Par')] }, { tool_calls: [call('{"city": "Paris"}')] }])
    const invalid = (await ask('agent-json')).choices[0]?.message.tool_calls?.[0]
    expect(invalid).toEqual({
      id: 'call_1',
      type: 'function',
      function: { name: 'lookup', arguments: '{"city": "Par' },
    })
    const stream = client.chat.completions.stream({
      model: 'agent-json',
      messages: [{ role: 'user', content: 'again' }],
    })
    const valid = (await stream.finalChatCompletion()).choices[0]?.message.tool_calls?.[0]
    expect(valid).toMatchObject({ id: 'call_1', function: { name: 'lookup', arguments: '{"city": "Paris"}' } })
  })

  it('repeat_last answers the last scripted answer again once the others are spent', async () => {
    await script('agent-loop', [{ content: 'first' }, { content: 'again', finish_reason: 'length' }], true)
    const answers = []
    for (let i = 0; i < 4; i++) answers.push((await ask('agent-loop')).choices[0])
    expect(answers.map((choice) => [choice?.message.content, choice?.finish_reason])).toEqual([
      ['first', 'stop'],
      ['again', 'length'],
      ['again', 'length'],
      ['again', 'length'],
    ])
  })

  it('answers 500 once the script is exhausted, streamed or not', async () => {
    await script('agent-short', [{ content: 'only' }])
    expect((await ask('agent-short')).choices[0]?.message.content).toBe('only')
    const error = await rejectionOf(ask('agent-short'))
    expect(error).toBeInstanceOf(InternalServerError)
    expect((error as APIError).error).toEqual({ message: 'script exhausted: 1 answers scripted', type: 'server_error' })
    await expect(
      client.chat.completions.create({ model: 'agent-short', messages: [], stream: true }),
    ).rejects.toBeInstanceOf(InternalServerError)
    expect((await requests('agent-short')).length).toBe(3)
  })

  it('answers a scripted status with an OpenAI error body', async () => {
    await script('agent-errors', [
      { status: 429 },
      { status: 503, error: 'overloaded' },
      { status: 400, error: 'tool schema rejected' },
      { content: 'fine' },
    ])
    const limited = await rejectionOf(ask('agent-errors'))
    expect(limited).toBeInstanceOf(RateLimitError)
    expect((limited as APIError).error).toEqual({
      message: RATE_LIMIT_MESSAGE,
      type: 'requests',
      code: 'rate_limit_exceeded',
    })
    const unavailable = await rejectionOf(ask('agent-errors'))
    expect(unavailable).toBeInstanceOf(InternalServerError)
    expect((unavailable as APIError).status).toBe(503)
    expect((unavailable as APIError).error).toEqual({ message: 'overloaded', type: 'server_error' })
    const refused = await rejectionOf(ask('agent-errors'))
    expect(refused).toBeInstanceOf(BadRequestError)
    expect((refused as APIError).error).toEqual({ message: 'tool schema rejected', type: 'invalid_request_error' })
    expect((await ask('agent-errors')).choices[0]?.message.content).toBe('fine')
  })

  it('a scripted hang holds the request until the client leaves, then the script goes on', async () => {
    await script('agent-hang', [{ hang: true }, { content: 'after the hang' }])
    const abort = new AbortController()
    const hung = rejectionOf(ask('agent-hang', 'x', { signal: abort.signal }))
    await server.arrived('agent-hang')
    abort.abort()
    expect(await hung).toBeInstanceOf(APIUserAbortError)
    expect((await ask('agent-hang')).choices[0]?.message.content).toBe('after the hang')
  })

  it('refuses a malformed script with 400 and a message saying what is wrong, keeping the script it had', async () => {
    await script('agent-bad', [{ content: 'kept' }])
    for (const [body, message] of [
      ['{nope', 'the request body is not JSON'],
      ['[]', 'the request body must be a JSON object'],
      ['{}', 'answers must be a non-empty array'],
      ['{"answers": []}', 'answers must be a non-empty array'],
      ['{"answers": [{}], "repeatLast": true}', 'the body has unknown fields repeatLast'],
      ['{"answers": [{}], "repeat_last": "yes"}', 'repeat_last must be a boolean'],
      ['{"answers": ["hi"]}', 'answers[0] must be an object'],
      ['{"answers": [{"text": "hi"}]}', 'answers[0] has unknown fields text'],
      ['{"answers": [{"content": 1}]}', 'answers[0].content must be a string or null'],
      ['{"answers": [{"tool_calls": {}}]}', 'answers[0].tool_calls must be a non-empty array'],
      ['{"answers": [{}, {"tool_calls": [{"id": "c", "name": "f"}]}]}', 'answers[1].tool_calls[0].arguments must be'],
      [
        '{"answers": [{"tool_calls": [{"id": "c", "name": "f", "arguments": {}}]}]}',
        'answers[0].tool_calls[0].arguments must be a string',
      ],
      ['{"answers": [{"usage": {"prompt_tokens": 1}}]}', 'answers[0].usage.completion_tokens must be'],
      ['{"answers": [{"hang": false}]}', 'answers[0].hang must be true'],
      ['{"answers": [{"status": 200}]}', 'answers[0].status must be an error status, 400 to 599'],
      ['{"answers": [{"error": "boom"}]}', 'answers[0].error is the message of a status'],
      ['{"answers": [{"status": 429, "content": "x"}]}', 'answers[0] answers a status, so it cannot have content'],
      ['{"answers": [{"hang": true, "content": "x"}]}', 'answers[0] hangs, so it cannot have content'],
      ['{"answers": [{"hang": true, "status": 500}]}', 'answers[0] cannot both hang and answer a status'],
    ]) {
      const res = await scriptRaw('agent-bad', body!)
      expect(res.status, body).toBe(400)
      const { error } = (await res.json()) as { error: string }
      expect(error, body).toContain(`bad script for agent-bad: ${message}`)
    }
    expect((await fetch(new URL('/__script', server.url), { method: 'POST', body: '{}' })).status).toBe(400)
    expect((await admin('/__script', 'agent-bad')).status).toBe(404)
    expect((await ask('agent-bad')).choices[0]?.message.content).toBe('kept')
  })

  it('a script takes precedence over the name, until reset forgets it', async () => {
    await script('fail-1', [{ content: 'scripted' }])
    expect((await ask('fail-1')).choices[0]?.message.content).toBe('scripted')
    await reset('fail-1')
    await expect(ask('fail-1')).rejects.toBeInstanceOf(InternalServerError)
    await reset('fail-1')

    await script('agent-forgotten', [{ content: 'scripted' }])
    await reset('agent-forgotten')
    expect((await ask('agent-forgotten')).choices[0]?.message.content).toBe('echo: hi')
  })

  it('scripting a model again replaces its script and forgets its requests', async () => {
    await script('agent-again', [{ content: 'a' }, { content: 'b' }])
    expect((await ask('agent-again')).choices[0]?.message.content).toBe('a')
    await script('agent-again', [{ content: 'c' }])
    expect(await requests('agent-again')).toEqual([])
    expect((await ask('agent-again')).choices[0]?.message.content).toBe('c')
  })

  it('stop ends a scripted hang', async () => {
    const own = await startLlmServer()
    const ownClient = new OpenAI({ baseURL: own.url, apiKey: 'k', maxRetries: 0 })
    const res = await fetch(new URL('/__script?model=agent-hang', own.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ answers: [{ hang: true }] }),
    })
    expect(res.status).toBe(200)
    const hung = rejectionOf(ownClient.chat.completions.create({ model: 'agent-hang', messages: [] }))
    await own.arrived('agent-hang')
    await own.stop()
    expect(await hung).toBeInstanceOf(APIConnectionError)
  })
})
