// Issue 32: the official `openai` SDK, unmodified (only baseURL and apiKey), against the service served on a port
// (wrangler dev), with the local OpenAI-compatible LLM server and the REST tool server behind it: stored prompts
// called by id through responses.create and chat.completions.create, streamed and not, the typed errors, the models.
import OpenAI, { AuthenticationError, BadRequestError, NotFoundError } from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_TOKEN, DEFAULT_MODEL, startOpenAiService } from '../support/openai-service'
import type { OpenAiService } from '../support/openai-service'

let service: OpenAiService
let client: OpenAI

beforeAll(async () => {
  service = await startOpenAiService({ LLM_ROUTES: '' })
  client = new OpenAI({ baseURL: service.baseURL, apiKey: API_TOKEN })
  await service.redis.mset({
    'shenma:templates:sdk:greet': {
      prompt: 'Greet {{.args.name}}.',
      parameters: [{ name: 'name', type: 'string', required: true }],
    },
    'shenma:tools:refs:lookup': {
      name: 'lookup',
      module: 'refs',
      type: 'restful',
      restful: { url: `${service.toolsUrl}/tools/refs/{symbol}?group=sdk-tools`, method: 'GET' },
      description: 'Finds the references of a symbol',
      parameters: { symbol: { type: 'string', required: true } },
    },
    // Calls refs_lookup while rendering, and offers it to the model.
    'shenma:templates:sdk:refs': {
      prompt: 'Review {{.args.symbol}}; its references: {{(refs_lookup .args.symbol).path}}.',
      parameters: [{ name: 'symbol', type: 'string', required: true }],
      tools: ['refs_lookup'],
    },
  })
}, 120_000)
afterAll(() => service?.stop())

const greet = { id: 'sdk.greet', variables: { name: 'Ada' } }

describe('responses.create with prompt', () => {
  it('answers the rendered prompt: output_text, a message item, usage', async () => {
    await service.script('sdk-resp', [{ content: 'Hello, Ada.' }])
    const response = await client.responses.create({ model: 'sdk-resp', prompt: greet, input: 'Briefly.' })
    expect(response.output_text).toBe('Hello, Ada.')
    expect(response.status).toBe('completed')
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant' })
    expect(response.usage).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 })
    const [sent] = await service.requests('sdk-resp')
    expect(sent?.body.messages).toEqual([
      { role: 'user', content: 'Greet Ada.' },
      { role: 'user', content: 'Briefly.' },
    ])
  })

  it('streamed: the text as deltas, then response.completed with the usage', async () => {
    await service.script('sdk-resp-stream', [{ content: 'Hello there, Ada.' }])
    const stream = await client.responses.create({ model: 'sdk-resp-stream', prompt: greet, stream: true })
    const types: string[] = []
    let text = ''
    let completed: OpenAI.Responses.Response | undefined
    for await (const event of stream) {
      types.push(event.type)
      if (event.type === 'response.output_text.delta') text += event.delta
      if (event.type === 'response.completed') completed = event.response
    }
    expect(types[0]).toBe('response.created')
    expect(types.at(-1)).toBe('response.completed')
    expect(types.filter((t) => t === 'response.output_text.delta').length).toBeGreaterThan(1)
    expect(text).toBe('Hello there, Ada.')
    expect(completed?.output_text).toBe('Hello there, Ada.')
    expect(completed?.usage?.total_tokens).toBe(10)
  })

  it('with the model prompt:<id> and the variables in metadata: LLM_DEFAULT_MODEL answers', async () => {
    await service.script(DEFAULT_MODEL, [{ content: 'hi Bo' }])
    const response = await client.responses.create({ model: 'prompt:sdk.greet', metadata: { name: 'Bo' } })
    expect(response.output_text).toBe('hi Bo')
    expect((await service.requests(DEFAULT_MODEL))[0]?.body.messages).toEqual([{ role: 'user', content: 'Greet Bo.' }])
  })
})

describe('chat.completions.create with prompt', () => {
  it('answers the chat completion of the rendered prompt and the messages', async () => {
    await service.script('sdk-chat', [{ content: 'Hi, Ada.' }])
    const params = { model: 'sdk-chat', prompt: greet, messages: [{ role: 'user' as const, content: 'Now.' }] }
    const completion = await client.chat.completions.create(params)
    expect(completion.choices[0]?.message.content).toBe('Hi, Ada.')
    expect(completion.usage?.total_tokens).toBe(10)
    expect((await service.requests('sdk-chat'))[0]?.body.messages).toEqual([
      { role: 'user', content: 'Greet Ada.' },
      { role: 'user', content: 'Now.' },
    ])
  })

  it('streamed: the chunks, and the usage chunk asked for', async () => {
    await service.script('sdk-chat-stream', [{ content: 'Hi there, Ada.' }])
    const params = {
      model: 'sdk-chat-stream',
      prompt: greet,
      messages: [],
      stream: true as const,
      stream_options: { include_usage: true },
    }
    const stream = await client.chat.completions.create(params)
    let text = ''
    let usage: OpenAI.CompletionUsage | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      if (chunk.usage) usage = chunk.usage
    }
    expect(text).toBe('Hi there, Ada.')
    expect(usage?.total_tokens).toBe(10)
  })
})

describe('errors, as the SDK raises them', () => {
  it('an unknown prompt id: NotFoundError naming it', async () => {
    const error = await client.responses.create({ model: 'ok', prompt: { id: 'sdk.nowhere' } }).catch((e) => e)
    expect(error).toBeInstanceOf(NotFoundError)
    expect((error as NotFoundError).message).toContain("'sdk.nowhere'")
    expect((error as NotFoundError).code).toBe('NOT_FOUND')
  })

  it('a missing required variable: BadRequestError with param', async () => {
    const params = { model: 'ok', prompt: { id: 'sdk.greet' }, messages: [] }
    const error = await client.chat.completions.create(params).catch((e) => e)
    expect(error).toBeInstanceOf(BadRequestError)
    expect((error as BadRequestError).param).toBe('name')
    expect((error as BadRequestError).code).toBe('INVALID_ARGS')
  })

  it('an apiKey that is not the API_TOKEN: AuthenticationError', async () => {
    const stranger = new OpenAI({ baseURL: service.baseURL, apiKey: 'not-the-token' })
    await expect(stranger.models.list()).rejects.toBeInstanceOf(AuthenticationError)
  })
})

it('models.list(): the routed models', async () => {
  const models = []
  for await (const model of client.models.list()) models.push(model.id)
  expect(models).toEqual([DEFAULT_MODEL])
})

describe('a prompt that calls a tool while rendering and offers it to the model', () => {
  it('through /v1/responses: the final answer, usage summed over both steps, the tool called twice', async () => {
    await service.script('sdk-tools', [
      { tool_calls: [{ id: 'call_1', name: 'refs_lookup', arguments: '{"symbol":"Bar"}' }] },
      { content: 'Foo and Bar are fine.', usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } },
    ])
    const before = (await service.toolStats('sdk-tools')).calls
    const response = await client.responses.create({
      model: 'sdk-tools',
      prompt: { id: 'sdk.refs', variables: { symbol: 'Foo' } },
    })
    expect(response.output_text).toBe('Foo and Bar are fine.')
    expect(response.output.map((item) => item.type)).toEqual(['message'])
    expect(response.usage).toMatchObject({ input_tokens: 27, output_tokens: 8, total_tokens: 35 })
    expect((await service.toolStats('sdk-tools')).calls - before).toBe(2)
    const [first, second] = await service.requests('sdk-tools')
    expect(first?.body.messages).toEqual([{ role: 'user', content: 'Review Foo; its references: /tools/refs/Foo.' }])
    expect((second?.body.messages as { role: string }[]).map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
  })
})
