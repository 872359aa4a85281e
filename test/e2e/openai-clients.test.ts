// Issue 32: stored prompts called through /v1 by the Vercel AI SDK (`ai` + `@ai-sdk/openai`) and LangChain's
// ChatOpenAI, as their users write them: only a base URL and an API key, no fetch of ours. The service is
// `npm run dev:redis` on a port (so prompts can be written and versioned), the LLM behind it the local
// OpenAI-compatible test server: each test checks what that server received (the rendered prompt, the caller's
// words after it, the provider's key) and what the client made of the answer.
import { createOpenAI } from '@ai-sdk/openai'
import { ChatOpenAI } from '@langchain/openai'
import type { AIMessageChunk } from '@langchain/core/messages'
import { APICallError, generateText, streamText } from 'ai'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { USAGE, startLlmServer } from '../support/llm-server'
import type { LlmRequestRecord, LlmServer } from '../support/llm-server'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

/** The service's API_TOKEN: what every client sends as its API key. */
const API_TOKEN = 'shell-api-token'
/** The provider's key, which only the service holds. */
const PROVIDER_KEY = 'provider-key'
/** LLM_DEFAULT_MODEL: the model behind `prompt:<id>`. The test server echoes the last message to any unscripted name. */
const MODEL = 'shell-default'
const GREET = { prompt: 'Greet {{.args.name}} warmly.', parameters: [{ name: 'name', type: 'string', required: true }] }

let llm: LlmServer
let dev: DevServer
let baseURL: string

/** What the LLM server received for `model` since the last reset. */
async function received(model = MODEL): Promise<LlmRequestRecord[]> {
  const res = await fetch(`${llm.origin}/__requests?model=${encodeURIComponent(model)}`)
  return ((await res.json()) as { requests: LlmRequestRecord[] }).requests
}

/** The messages of a chat request, each as `role: text` (text parts joined). */
function said(request: LlmRequestRecord | undefined): string[] {
  const messages = (request?.body.messages ?? []) as { role: string; content: unknown }[]
  return messages.map(({ role, content }) => {
    const parts = Array.isArray(content) ? (content as { text?: string }[]) : [{ text: String(content) }]
    return `${role}: ${parts.map((part) => part.text ?? '').join('')}`
  })
}

/** Writes a prompt through the service's write API, as a publisher would; each write is a new version. */
async function put(id: string, record: unknown): Promise<void> {
  const res = await fetch(`${dev.url}/api/prompts/${id}`, {
    method: 'PUT',
    headers: { authorization: 'Bearer dev-admin-token', 'content-type': 'application/json' },
    body: JSON.stringify(record),
  })
  expect(res.status, await res.text()).toBe(200)
}

beforeAll(async () => {
  llm = await startLlmServer()
  dev = await startDev(
    { LLM_BASE_URL: llm.url, LLM_API_KEY: PROVIDER_KEY, LLM_DEFAULT_MODEL: MODEL, API_TOKEN },
    'dev:redis',
  )
  baseURL = `${dev.url}/v1`
  await put('team.greet', GREET)
  await put('team.versioned', { prompt: 'First words.' })
  await put('team.versioned', { prompt: 'Second words.' })
  await put('team.versioned?label=feat', { prompt: 'Label words.' })
}, 90_000)
afterAll(async () => {
  await dev?.stop()
  await llm?.stop()
})
beforeEach(async () => {
  await fetch(`${llm.origin}/__reset?model=${MODEL}`, { method: 'POST' })
})

describe('the Vercel AI SDK, createOpenAI({ baseURL, apiKey })', () => {
  const openai = () => createOpenAI({ baseURL, apiKey: API_TOKEN })
  const variables = { openai: { metadata: { name: 'Ada' } } }

  it.each([
    ['Responses', (id: string) => openai()(id)],
    ['chat', (id: string) => openai().chat(id)],
  ])('generateText through the %s model: the rendered prompt, then the caller’s words', async (_, model) => {
    const result = await generateText({
      model: model('prompt:team.greet'),
      prompt: 'Be brief.',
      providerOptions: variables,
    })
    expect(result.text).toBe('echo: Be brief.')
    expect(result.usage).toMatchObject({
      inputTokens: USAGE.prompt_tokens,
      outputTokens: USAGE.completion_tokens,
      totalTokens: USAGE.total_tokens,
    })
    const requests = await received()
    expect(requests).toHaveLength(1)
    expect(said(requests[0])).toEqual(['user: Greet Ada warmly.', 'user: Be brief.'])
    expect(requests[0]?.authorization).toBe(`Bearer ${PROVIDER_KEY}`)
  })

  it.each([
    ['Responses', (id: string) => openai()(id)],
    ['chat', (id: string) => openai().chat(id)],
  ])('streamText through the %s model: the text in deltas, the usage at the end', async (_, model) => {
    const result = streamText({ model: model('prompt:team.greet'), prompt: 'Stream it.', providerOptions: variables })
    const deltas: string[] = []
    for await (const delta of result.textStream) deltas.push(delta)
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('echo: Stream it.')
    expect(await result.usage).toMatchObject({ inputTokens: 7, outputTokens: 3, totalTokens: 10 })
    expect(said((await received())[0])).toEqual(['user: Greet Ada warmly.', 'user: Stream it.'])
  })

  it('prompt:<id>@<version> renders that version, not the current one', async () => {
    const { text } = await generateText({ model: openai()('prompt:team.versioned@1'), prompt: 'Go.' })
    expect(text).toBe('echo: Go.')
    expect(said((await received())[0])).toEqual(['user: First words.', 'user: Go.'])
  })

  it('an unknown prompt id: APICallError 404 whose message names the id; the LLM is never asked', async () => {
    const error = await generateText({ model: openai()('prompt:team.nowhere'), prompt: 'Hi.' }).catch((e) => e)
    expect(APICallError.isInstance(error)).toBe(true)
    expect((error as APICallError).statusCode).toBe(404)
    expect((error as APICallError).message).toContain('team.nowhere')
    expect(JSON.parse((error as APICallError).responseBody ?? '')).toMatchObject({ error: { code: 'NOT_FOUND' } })
    expect(await received()).toHaveLength(0)
  })

  it('a missing required variable: APICallError 400, INVALID_ARGS with param naming it', async () => {
    const error = await generateText({ model: openai().chat('prompt:team.greet'), prompt: 'Hi.' }).catch((e) => e)
    expect((error as APICallError).statusCode).toBe(400)
    expect(JSON.parse((error as APICallError).responseBody ?? '')).toMatchObject({
      error: { code: 'INVALID_ARGS', param: 'name', type: 'invalid_request_error' },
    })
    expect(await received()).toHaveLength(0)
  })

  it('an API key that is not API_TOKEN: 401, the LLM never asked', async () => {
    const wrong = createOpenAI({ baseURL, apiKey: 'not-the-token' })
    const error = await generateText({ model: wrong('prompt:team.greet'), prompt: 'Hi.' }).catch((e) => e)
    expect((error as APICallError).statusCode).toBe(401)
    expect(await received()).toHaveLength(0)
  })

  it('a model that names no prompt goes through as it is: one base URL for both', async () => {
    const { text } = await generateText({ model: openai().chat(MODEL), prompt: 'Plain.' })
    expect(text).toBe('echo: Plain.')
    expect(said((await received())[0])).toEqual(['user: Plain.'])
  })
})

describe('LangChain, ChatOpenAI({ configuration: { baseURL }, apiKey, modelKwargs: { prompt } })', () => {
  const chat = (prompt: Record<string, unknown>, over: Record<string, unknown> = {}) =>
    new ChatOpenAI({ model: MODEL, apiKey: API_TOKEN, configuration: { baseURL }, modelKwargs: { prompt }, ...over })

  it('invoke: the rendered prompt, then the caller’s words; the answer and its usage', async () => {
    const answer = await chat({ id: 'team.greet', variables: { name: 'Grace' } }).invoke('Be brief.')
    expect(answer.content).toBe('echo: Be brief.')
    expect(answer.usage_metadata).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 })
    const requests = await received()
    expect(requests).toHaveLength(1)
    expect(said(requests[0])).toEqual(['user: Greet Grace warmly.', 'user: Be brief.'])
    expect(requests[0]?.authorization).toBe(`Bearer ${PROVIDER_KEY}`)
  })

  it('stream: chunks that add up to the answer, the usage with them', async () => {
    const chunks: AIMessageChunk[] = []
    for await (const chunk of await chat({ id: 'team.greet', variables: { name: 'Grace' } }).stream('Stream it.')) {
      chunks.push(chunk)
    }
    expect(chunks.length).toBeGreaterThan(1)
    const whole = chunks.reduce((all, chunk) => all.concat(chunk))
    expect(whole.content).toBe('echo: Stream it.')
    expect(whole.usage_metadata).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 })
    expect(said((await received())[0])).toEqual(['user: Greet Grace warmly.', 'user: Stream it.'])
  })

  it('version in the prompt member renders that version', async () => {
    const answer = await chat({ id: 'team.versioned', version: '1' }).invoke('Go.')
    expect(answer.content).toBe('echo: Go.')
    expect(said((await received())[0])).toEqual(['user: First words.', 'user: Go.'])
  })

  it('a label through the OpenAI client’s defaultQuery: ?label= on every request', async () => {
    const labelled = chat({ id: 'team.versioned' }, { configuration: { baseURL, defaultQuery: { label: 'feat' } } })
    expect((await labelled.invoke('Go.')).content).toBe('echo: Go.')
    expect(said((await received())[0])).toEqual(['user: Label words.', 'user: Go.'])
  })

  it('through the Responses API (useResponsesApi): the same prompt, the same answer', async () => {
    const model = chat({ id: 'team.greet', variables: { name: 'Grace' } }, { useResponsesApi: true })
    const answer = await model.invoke('Be brief.')
    expect(answer.text).toBe('echo: Be brief.')
    expect(said((await received())[0])).toEqual(['user: Greet Grace warmly.', 'user: Be brief.'])
  })

  it('an unknown prompt id: the SDK’s 404 error, whose message names the id; no retry reaches the LLM', async () => {
    const error = (await chat({ id: 'team.nowhere' })
      .invoke('Hi.')
      .catch((e: unknown) => e)) as { status?: number; message: string; code?: string }
    expect(error.status).toBe(404)
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toContain('team.nowhere')
    expect(await received()).toHaveLength(0)
  })
})
