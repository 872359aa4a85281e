// Issue 27, row 5: a server that answers a megabyte in 16-byte chunks, as
// fast as it is read, without the blank line that would end its event
// (test/support/drip-server.ts). Read without pause, such an answer never
// let workerd's event loop reach its timers, so a tool's TOOL_TIMEOUT_MS
// did not fire until the megabyte was in; and a chat's stream handed it on
// one chunk at a time, 62,500 enqueues for its reader.
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest'
import { mcpTool } from '../support/records'
import { call, chatEnv, fetchWorker, freshRedis } from '../support/harness'
import type { TestRedis } from '../support/harness'

const drip = inject('dripUrl')
let db: TestRedis

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.set('shenma:tools:drip:endless', mcpTool('drip', 'endless', `${drip}/mcp?bytes=1000000&piece=16`))
  await db.redis.set('shenma:templates:drip:tool', { prompt: '[{{drip_endless}}]' })
  await db.redis.set('shenma:templates:drip:chat', { prompt: 'Say something.' })
})
afterAll(() => db.release())

describe('a tool answering 1 MB in 16-byte chunks without a blank line', () => {
  it('is stopped by TOOL_TIMEOUT_MS while the chunks still arrive', async () => {
    const env = { ...db.env, TOOL_TIMEOUT_MS: '100', RENDER_TIMEOUT_MS: '20000' }
    const answer = await call(env, 'POST', '/api/prompts/drip.tool/render', {})
    expect(answer.status).toBe(200)
    expect(answer.body).toMatchObject({
      warnings: [{ code: 'TOOL_FAILED', tool: 'drip_endless', message: 'timed out after 100 ms' }],
    })
  })
})

describe('an LLM stream of 1 MB in 16-byte chunks without a blank line', () => {
  // Issue 28: the stream is parsed by the openai SDK, which hands on whole events only, and whose parser copies
  // what it holds of an unfinished event with every chunk. The event is gathered in pieces, in linear time, and
  // handed to the SDK whole or not at all (lib/llm/fetch.ts): this one never ends, so nothing of it goes on.
  it('is read in linear time, and ends with the error event saying the provider ended before [DONE]', async () => {
    const route = { drip: { baseURL: `${drip}/v1`, apiKeyVar: 'LLM_API_KEY' } }
    const env = chatEnv(db, { LLM_ROUTES: JSON.stringify(route) })
    const res = await fetchWorker(env, '/api/prompts/drip.chat/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'drip', stream: true }),
    })
    // The event never ends, so the stream never has its first chunk: retried, then an HTTP error.
    expect(res.status).toBe(502)
    const body = (await res.json()) as { code: string; message: string }
    expect(body).toMatchObject({ code: 'LLM_FAILED' })
    expect(body.message).toContain('the provider ended the stream before [DONE]')
    // Three attempts of a megabyte in 62,500 chunks, a timer's turn every 64 of them: seconds, not minutes.
  }, 30_000)
})
