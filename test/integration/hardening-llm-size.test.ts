// Issue 27 follow-up: an answer over LLM_MAX_BYTES is never retried, however
// it arrived (lib/llm/retry.ts). Through the native adapters, a stream's
// first event too big for the SSE parser (lib/egress/sse.ts) failed inside
// stream()'s retry step and was tried three times; it is LLM_FAILED at
// once, as a body too big is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatEnv, fetchWorker, freshRedis, llmServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import type { Env } from '../../lib/env'

const llm = llmServer()
let db: TestRedis

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.set('shenma:templates:size:hello', { prompt: 'Say hello.' })
})
afterAll(() => db.release())

/** Every request of `model` sent to `api`'s own wire format, answers bounded to `maxBytes`. */
function envFor(api: 'anthropic' | 'gemini', model: string, maxBytes: number): Env {
  const route = { api, baseURL: nativeRoot(), apiKeyVar: 'NATIVE_KEY' }
  return {
    ...chatEnv(db),
    NATIVE_KEY: 'k',
    LLM_MAX_BYTES: String(maxBytes),
    LLM_ROUTES: JSON.stringify({ [model]: route }),
  } as Env
}

function nativeRoot(): string {
  return llm.url.replace(/\/v1$/, '')
}

async function chat(env: Env, model: string, stream: boolean) {
  const res = await fetchWorker(env, '/api/prompts/size.hello/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream }),
  })
  return { status: res.status, text: await res.text() }
}

/** A `big-N` text: Gemini streams it in events of 64 KiB of text each, which arrive in pieces. */
const BIG = 'big-200000'
const OVER = { code: 'LLM_FAILED', message: 'the provider answered more than LLM_MAX_BYTES (1000 bytes)' }

describe('a first stream event over LLM_MAX_BYTES', () => {
  // Anthropic's first event (message_start) is small whatever the answer, so Gemini's stands for both
  // adapters: the event fails the SSE parser inside stream()'s retry step.
  it('is 502 LLM_FAILED naming the limit, after one request', async () => {
    await llm.reset(BIG)
    const { status, text } = await chat(envFor('gemini', BIG, 1000), BIG, true)
    expect({ status, body: JSON.parse(text) as unknown }).toMatchObject({ status: 502, body: OVER })
    expect(await llm.requests(BIG)).toHaveLength(1)
  })
})

describe.each(['anthropic', 'gemini'] as const)('%s: a whole answer over LLM_MAX_BYTES', (api) => {
  it('is 502 LLM_FAILED naming the limit, after one request', async () => {
    await llm.reset(BIG)
    const { status, text } = await chat(envFor(api, BIG, 1000), BIG, false)
    expect({ status, body: JSON.parse(text) as unknown }).toMatchObject({ status: 502, body: OVER })
    expect(await llm.requests(BIG)).toHaveLength(1)
  })
})
