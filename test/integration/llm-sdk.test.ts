// Issue 28, point 2: OpenAI-compatible providers through the `openai` SDK, set for the edge. Its own retries are
// off (it would wait a Retry-After past the chat's deadline), the service's policy runs around it; its fetch is the
// service's bounded one; its headers of its own stay home.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatEnv, fetchWorker, freshRedis, llmServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { readToEnd, sentEvents } from '../support/sse-read'
import type { Env } from '../../lib/env'

const llm = llmServer()
let db: TestRedis
let env: Env

beforeAll(async () => {
  db = await freshRedis()
  env = chatEnv(db)
  await db.redis.set('shenma:templates:sdk:hello', { prompt: 'Say hello.' })
  // The SDK is loaded by the first chat (lib/llm/client.ts imports it then), and vitest serves its modules one by
  // one: seconds, here, that a chat's deadline of 1 s below must not include.
  expect((await chat({ model: 'ok' })).status).toBe(200)
})
afterAll(() => db.release())

async function chat(body: Record<string, unknown>, over: Env = {}) {
  const res = await fetchWorker({ ...env, ...over }, '/api/prompts/sdk.hello/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const { text } = await readToEnd(res)
  return { status: res.status, text, json: () => JSON.parse(text) as { code?: string; message?: string } }
}

describe('a 429 with Retry-After', () => {
  it('longer than the chat has left: 502 LLM_FAILED at once, naming the wait, after one request', async () => {
    await llm.script('wait-5', [{ status: 429, retry_after: '5' }], { repeatLast: true })
    const { status, json } = await chat({ model: 'wait-5' }, { CHAT_TIMEOUT_MS: '1000' })
    expect(status).toBe(502)
    const { code, message } = json()
    expect(code).toBe('LLM_FAILED')
    expect(message).toMatch(
      /^the provider answered 429 .*asked to wait 5 s \(Retry-After\) before another try: more than the \d+ ms left of CHAT_TIMEOUT_MS$/,
    )
    expect(await llm.requests('wait-5')).toHaveLength(1)
  })

  it('streamed, the same: an HTTP error, since no chunk was sent', async () => {
    await llm.script('wait-5-stream', [{ status: 429, retry_after: '5' }], { repeatLast: true })
    const { status, json } = await chat({ model: 'wait-5-stream', stream: true }, { CHAT_TIMEOUT_MS: '1000' })
    expect({ status, code: json().code }).toEqual({ status: 502, code: 'LLM_FAILED' })
    expect(json().message).toContain('5 s (Retry-After)')
    expect(await llm.requests('wait-5-stream')).toHaveLength(1)
  })

  it('as a date past the deadline: the same', async () => {
    const later = new Date(Date.now() + 60_000).toUTCString()
    await llm.script('wait-date', [{ status: 429, retry_after: later }], { repeatLast: true })
    const { status, json } = await chat({ model: 'wait-date' }, { CHAT_TIMEOUT_MS: '1000' })
    expect({ status, code: json().code }).toEqual({ status: 502, code: 'LLM_FAILED' })
    expect(json().message).toContain(`${later} (Retry-After)`)
    expect(await llm.requests('wait-date')).toHaveLength(1)
  })

  it('that fits before the deadline: waited, then retried', async () => {
    await llm.script('wait-0', [{ status: 429, retry_after: '0' }, { content: 'done' }])
    const { status } = await chat({ model: 'wait-0' }, { CHAT_TIMEOUT_MS: '1000', LLM_RETRY_DELAYS_MS: '0' })
    expect(status).toBe(200)
    expect(await llm.requests('wait-0')).toHaveLength(2)
  })
})

describe('a stream past LLM_MAX_BYTES', () => {
  it('is cut after whole chunks, its error event last, no [DONE], the connection let go', async () => {
    // More than socket buffers hold: the server is still writing when the Worker lets the answer go.
    const model = 'big-100000000'
    await llm.reset(model)
    const { status, text } = await chat({ model, stream: true }, { LLM_MAX_BYTES: '200000' })
    expect(status).toBe(200)
    const events = sentEvents(text)
    expect(events.at(-1)).toEqual({
      event: 'error',
      data: '{"error":{"code":"LLM_FAILED","message":"the answer passed LLM_MAX_BYTES (200000 bytes)"}}',
    })
    const chunks = events.slice(0, -1)
    expect(chunks.length).toBeGreaterThan(0)
    for (const chunk of chunks) expect(JSON.parse(chunk.data)).toMatchObject({ object: 'chat.completion.chunk' })
    expect(text).not.toContain('[DONE]')
    expect(new TextEncoder().encode(text).byteLength).toBeLessThan(200_000 + 200)
    expect(await llm.idle(model)).toEqual({ cutShort: 1 })
  })
})

describe("the SDK's requests", () => {
  it("carry the key, and none of the SDK's own headers (its version, the runtime's, the OS)", async () => {
    await llm.reset('ok')
    expect((await chat({ model: 'ok' })).status).toBe(200)
    const [sent] = await llm.requests('ok')
    expect(sent?.authorization).toBe('Bearer test-key')
    const names = sent?.headerNames ?? []
    expect(names.filter((n) => n.startsWith('x-stainless') || n.startsWith('openai-') || n === 'user-agent')).toEqual(
      [],
    )
    expect(names).toContain('content-type')
  })

  it('carry no Authorization for a provider without a key', async () => {
    await llm.reset('ok')
    expect((await chat({ model: 'ok' }, { LLM_API_KEY: '' })).status).toBe(200)
    expect((await llm.requests('ok'))[0]?.authorization).toBeNull()
  })
})
