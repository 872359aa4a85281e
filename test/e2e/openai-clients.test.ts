// Issue 32: stored prompts called through /v1 by the Vercel AI SDK (`ai` + `@ai-sdk/openai`) and LangChain's
// ChatOpenAI, as their users write them: only a base URL and an API key, no fetch of ours. The service is the one
// test/support/openai-service.ts serves on a port, writes enabled (so prompts have versions and a label); each test
// scripts the local LLM server's answer and checks what that server received (the rendered prompt, the caller's
// words after it, the provider's key) and what the client made of the answer.
import { createOpenAI } from '@ai-sdk/openai'
import type { AIMessageChunk } from '@langchain/core/messages'
import { ChatOpenAI } from '@langchain/openai'
import { APICallError, generateText, streamText } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LlmRequestRecord } from '../support/llm-server'
import { API_TOKEN, DEFAULT_MODEL, startOpenAiService } from '../support/openai-service'
import type { OpenAiService } from '../support/openai-service'

const ADMIN_TOKEN = 'clients-admin-token'
/** The usage the LLM server reports for every answer (llm-wire/wire.ts's USAGE). */
const USAGE = { inputTokens: 7, outputTokens: 3, totalTokens: 10 }
const GREET = { prompt: 'Greet {{.args.name}} warmly.', parameters: [{ name: 'name', type: 'string', required: true }] }

let service: OpenAiService
let baseURL: string

/** The messages of the one request `model` received since it was scripted, each as `role: text`. */
async function said(model = DEFAULT_MODEL): Promise<string[]> {
  const requests: LlmRequestRecord[] = await service.requests(model)
  expect(requests).toHaveLength(1)
  const messages = (requests[0]?.body.messages ?? []) as { role: string; content: unknown }[]
  return messages.map(({ role, content }) => {
    const parts = Array.isArray(content) ? (content as { text?: string }[]) : [{ text: String(content) }]
    return `${role}: ${parts.map((part) => part.text ?? '').join('')}`
  })
}

/** Writes a prompt through the service's write API, as a publisher would: each write is a new version. */
async function put(path: string, record: unknown): Promise<void> {
  const res = await fetch(`${baseURL.replace(/\/v1$/, '')}/api/prompts/${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(record),
  })
  expect(res.status, await res.text()).toBe(200)
}

beforeAll(async () => {
  service = await startOpenAiService({ ADMIN_TOKEN })
  baseURL = service.baseURL
  await put('team.greet', GREET)
  await put('team.versioned', { prompt: 'First words.' })
  await put('team.versioned', { prompt: 'Second words.' })
  await put('team.versioned?label=feat', { prompt: 'Label words.' })
}, 120_000)
afterAll(() => service?.stop())

/** openai-service.ts's LLM_API_KEY: the provider's key, which the service holds and the clients never see. */
const PROVIDER_AUTH = 'Bearer provider-key'

describe('the Vercel AI SDK, createOpenAI({ baseURL, apiKey })', () => {
  const openai = () => createOpenAI({ baseURL, apiKey: API_TOKEN })
  const variables = { openai: { metadata: { name: 'Ada' } } }
  const models = [
    ['Responses', (id: string) => openai()(id)],
    ['chat', (id: string) => openai().chat(id)],
  ] as const

  it.each(models)('generateText, %s model: the rendered prompt, then the caller’s words', async (_, model) => {
    await service.script(DEFAULT_MODEL, [{ content: 'Hello, Ada.' }])
    const result = await generateText({
      model: model('prompt:team.greet'),
      prompt: 'Be brief.',
      providerOptions: variables,
    })
    expect(result.text).toBe('Hello, Ada.')
    expect(result.finishReason).toBe('stop')
    expect(result.usage).toMatchObject(USAGE)
    expect(await said()).toEqual(['user: Greet Ada warmly.', 'user: Be brief.'])
    expect((await service.requests(DEFAULT_MODEL))[0]?.authorization).toBe(PROVIDER_AUTH)
  })

  it.each(models)('streamText, %s model: the text in deltas, the usage at the end', async (_, model) => {
    await service.script(DEFAULT_MODEL, [{ content: 'Hello there, dear Ada.' }])
    const result = streamText({ model: model('prompt:team.greet'), prompt: 'Stream it.', providerOptions: variables })
    const deltas: string[] = []
    for await (const delta of result.textStream) deltas.push(delta)
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe('Hello there, dear Ada.')
    expect(await result.usage).toMatchObject(USAGE)
    expect(await said()).toEqual(['user: Greet Ada warmly.', 'user: Stream it.'])
  })

  it('prompt:<id>@<version> renders that version, not the current one', async () => {
    await service.script(DEFAULT_MODEL, [{ content: 'ok' }])
    const { text } = await generateText({ model: openai()('prompt:team.versioned@1'), prompt: 'Go.' })
    expect(text).toBe('ok')
    expect(await said()).toEqual(['user: First words.', 'user: Go.'])
  })

  it('an unknown prompt id: APICallError 404 whose message names the id; the LLM is never asked', async () => {
    await service.script(DEFAULT_MODEL, [{ content: 'never' }])
    const error: unknown = await generateText({ model: openai()('prompt:team.nowhere'), prompt: 'Hi.' }).catch(
      (e: unknown) => e,
    )
    if (!APICallError.isInstance(error)) throw error
    expect(error.statusCode).toBe(404)
    expect(error.message).toContain('team.nowhere')
    expect(JSON.parse(error.responseBody ?? '')).toMatchObject({
      error: { code: 'NOT_FOUND', type: 'not_found_error' },
    })
    expect(await service.requests(DEFAULT_MODEL)).toHaveLength(0)
  })

  it('a missing required variable: APICallError 400, INVALID_ARGS with param naming it', async () => {
    await service.script(DEFAULT_MODEL, [{ content: 'never' }])
    const error: unknown = await generateText({ model: openai().chat('prompt:team.greet'), prompt: 'Hi.' }).catch(
      (e: unknown) => e,
    )
    if (!APICallError.isInstance(error)) throw error
    expect(error.statusCode).toBe(400)
    expect(JSON.parse(error.responseBody ?? '')).toMatchObject({
      error: { code: 'INVALID_ARGS', param: 'name', type: 'invalid_request_error' },
    })
    expect(await service.requests(DEFAULT_MODEL)).toHaveLength(0)
  })

  it('an API key that is not API_TOKEN: 401, the LLM never asked', async () => {
    await service.script(DEFAULT_MODEL, [{ content: 'never' }])
    const wrong = createOpenAI({ baseURL, apiKey: 'not-the-token' })
    const error: unknown = await generateText({ model: wrong('prompt:team.greet'), prompt: 'Hi.' }).catch(
      (e: unknown) => e,
    )
    if (!APICallError.isInstance(error)) throw error
    expect(error.statusCode).toBe(401)
    expect(await service.requests(DEFAULT_MODEL)).toHaveLength(0)
  })

  it('a model that names no prompt goes through as it is: one base URL for both', async () => {
    await service.script('plain-model', [{ content: 'plain answer' }])
    const { text } = await generateText({ model: openai().chat('plain-model'), prompt: 'Plain.' })
    expect(text).toBe('plain answer')
    expect(await said('plain-model')).toEqual(['user: Plain.'])
  })
})

describe('LangChain, ChatOpenAI({ configuration: { baseURL }, apiKey, modelKwargs: { prompt } })', () => {
  const chat = (model: string, prompt: Record<string, unknown>, over: Record<string, unknown> = {}) =>
    new ChatOpenAI({ model, apiKey: API_TOKEN, configuration: { baseURL }, modelKwargs: { prompt }, ...over })
  const greet = { id: 'team.greet', variables: { name: 'Grace' } }

  it('invoke: the rendered prompt, then the caller’s words; the answer and its usage', async () => {
    await service.script('lc-invoke', [{ content: 'Hello, Grace.' }])
    const answer = await chat('lc-invoke', greet).invoke('Be brief.')
    expect(answer.content).toBe('Hello, Grace.')
    expect(answer.usage_metadata).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 })
    expect(await said('lc-invoke')).toEqual(['user: Greet Grace warmly.', 'user: Be brief.'])
    expect((await service.requests('lc-invoke'))[0]?.authorization).toBe(PROVIDER_AUTH)
  })

  it('stream: chunks that add up to the answer, the usage with them', async () => {
    await service.script('lc-stream', [{ content: 'Hello there, dear Grace.' }])
    const chunks: AIMessageChunk[] = []
    for await (const chunk of await chat('lc-stream', greet).stream('Stream it.')) chunks.push(chunk)
    expect(chunks.filter((chunk) => chunk.content !== '').length).toBeGreaterThan(1)
    const whole = chunks.reduce((all, chunk) => all.concat(chunk))
    expect(whole.content).toBe('Hello there, dear Grace.')
    expect(whole.usage_metadata).toMatchObject({ input_tokens: 7, output_tokens: 3, total_tokens: 10 })
    expect(await said('lc-stream')).toEqual(['user: Greet Grace warmly.', 'user: Stream it.'])
  })

  it('version in the prompt member renders that version', async () => {
    await service.script('lc-version', [{ content: 'ok' }])
    expect((await chat('lc-version', { id: 'team.versioned', version: '1' }).invoke('Go.')).content).toBe('ok')
    expect(await said('lc-version')).toEqual(['user: First words.', 'user: Go.'])
  })

  it('a label through the OpenAI client’s defaultQuery: ?label= on every request', async () => {
    await service.script('lc-label', [{ content: 'ok' }])
    const configuration = { baseURL, defaultQuery: { label: 'feat' } }
    expect((await chat('lc-label', { id: 'team.versioned' }, { configuration }).invoke('Go.')).content).toBe('ok')
    expect(await said('lc-label')).toEqual(['user: Label words.', 'user: Go.'])
  })

  it('through the Responses API (useResponsesApi): the same prompt, the same answer', async () => {
    await service.script('lc-responses', [{ content: 'Hello, Grace.' }])
    const answer = await chat('lc-responses', greet, { useResponsesApi: true }).invoke('Be brief.')
    expect(answer.text).toBe('Hello, Grace.')
    expect(await said('lc-responses')).toEqual(['user: Greet Grace warmly.', 'user: Be brief.'])
  })

  it('an unknown prompt id: the SDK’s 404 error, whose message names the id; the LLM never asked', async () => {
    await service.script('lc-missing', [{ content: 'never' }])
    const error = (await chat('lc-missing', { id: 'team.nowhere' })
      .invoke('Hi.')
      .catch((e: unknown) => e)) as { status?: number; code?: string; message: string }
    expect(error.status).toBe(404)
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toContain('team.nowhere')
    expect(await service.requests('lc-missing')).toHaveLength(0)
  })
})
