// Issue 27, row 11 follow-up, against the real Worker, the scripted LLM stand-in and the REST tool server: a tool
// round the conversation has no room for is decided before any call is made, from lengths alone. A call's arguments
// past CHAT_ARGUMENTS_MAX_BYTES, or a turn that re-sent with the conversation it joins (the prompt's and the
// caller's messages included) would pass LLM_MAX_BYTES, ends the loop with `stopped: max_bytes`: no tool is called,
// the provider is not asked again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, chatEnv, fetchWorker, freshRedis, llmServer, toolServer } from '../support/harness'
import type { ScriptedAnswer, TestRedis } from '../support/harness'
import { restTool } from '../support/records'
import { readToEnd, sentEvents } from '../support/sse-read'
import type { Env } from '../../lib/env'

const llm = llmServer()
const tools = toolServer()
let db: TestRedis
let env: Env

beforeAll(async () => {
  db = await freshRedis()
  env = chatEnv(db)
  await db.redis.mset({
    'shenma:tools:h11:echo': restTool('h11', 'echo', `${tools.url}/tools/echo?group=chat-early`, {
      method: 'POST',
      parameters: { x: { type: 'string' } },
    }),
    'shenma:templates:h11:calls': { prompt: 'Call h11_echo.', tools: ['h11_echo'] },
  })
})
afterAll(() => db.release())

const echoCall = (x: string, id = 'c1'): ScriptedAnswer => ({
  tool_calls: [{ id, name: 'h11_echo', arguments: JSON.stringify({ x }) }],
})

/** The chat's answer, what the provider was sent (characters of each request), and the calls the tool server got. */
async function chat(model: string, body: Record<string, unknown> = {}, over: Env = {}) {
  await tools.reset('chat-early')
  const answer = await call({ ...env, ...over }, 'POST', '/api/prompts/h11.calls/chat', { model, ...body })
  const sent = (await llm.requests(model)).map((r) => JSON.stringify(r.body).length)
  return { ...answer, sent, toolCalls: (await tools.idle('chat-early')).calls }
}

describe("a call's arguments past CHAT_ARGUMENTS_MAX_BYTES (1 MiB by default)", () => {
  const BIG = 3_900_000

  it('3.9 MB each round (the bench row): one request, no tool called, `stopped: max_bytes`, no step', async () => {
    await llm.script('early-big', [echoCall('y'.repeat(BIG))], { repeatLast: true })
    const { status, body, sent, toolCalls } = await chat('early-big')
    expect(status).toBe(200)
    expect(body).toMatchObject({ stopped: 'max_bytes', steps: [] })
    // Before: the tool was sent the 3.9 MB, then the provider a second request of 3.9 MB.
    expect(toolCalls).toBe(0)
    expect(sent).toHaveLength(1)
    expect(sent[0]).toBeLessThan(1024)
    // The answer is the provider's completion, its call as the model wrote it, and no more.
    expect(JSON.stringify(body).length).toBeLessThan(BIG + 1024)
  })

  it('is a setting, checked on the length before the text is parsed: a call past it ends the loop', async () => {
    const over = { CHAT_ARGUMENTS_MAX_BYTES: '1000' }
    const notJson = { tool_calls: [{ id: 'c1', name: 'h11_echo', arguments: `{"x": "${'z'.repeat(2000)}` }] }
    await llm.script('early-setting', [notJson], { repeatLast: true })
    const past = await chat('early-setting', {}, over)
    expect(past.body).toMatchObject({ stopped: 'max_bytes', steps: [] })
    expect([past.sent.length, past.toolCalls]).toEqual([1, 0])

    await llm.script('early-within', [echoCall('z'.repeat(900)), { content: 'done' }])
    const within = await chat('early-within', {}, over)
    expect(within.body).not.toHaveProperty('stopped')
    expect(within.body.steps).toMatchObject([{ step: 1, calls: [{ tool: 'h11_echo', outcome: 'ok' }] }])
    expect([within.sent.length, within.toolCalls]).toEqual([2, 1])
  })

  it("with a call of the caller's own tool: the service's call is not made, and nothing comes back for it", async () => {
    const own = { type: 'function', function: { name: 'mine', parameters: { type: 'object' } } }
    const both: ScriptedAnswer = {
      tool_calls: [
        { id: 'c1', name: 'mine', arguments: '{}' },
        { id: 'c2', name: 'h11_echo', arguments: JSON.stringify({ x: 'y'.repeat(1_100_000) }) },
      ],
    }
    await llm.script('early-mixed', [both])
    const { body, sent, toolCalls } = await chat('early-mixed', { tools: ['h11_echo', own] })
    expect(body).toMatchObject({ stopped: 'max_bytes', steps: [] })
    expect(body).not.toHaveProperty('tool_messages')
    expect([sent.length, toolCalls]).toEqual([1, 0])
  })

  it('after a round that was made: `steps` keep that round, and the loop stops before the next', async () => {
    await llm.script('early-second', [echoCall('small'), echoCall('y'.repeat(1_100_000), 'c2')], { repeatLast: true })
    const { body, sent, toolCalls } = await chat('early-second')
    expect(body).toMatchObject({ stopped: 'max_bytes', steps: [{ step: 1, calls: [{ id: 'c1', outcome: 'ok' }] }] })
    expect([sent.length, toolCalls]).toEqual([2, 1])
  })

  it('streamed, the same: one request, no tool called, a summary saying why it stopped', async () => {
    await llm.script('early-stream', [echoCall('y'.repeat(1_100_000))], { repeatLast: true })
    await tools.reset('chat-early')
    const res = await fetchWorker(env, '/api/prompts/h11.calls/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'early-stream', stream: true }),
    })
    const events = sentEvents((await readToEnd(res)).text)
    expect(JSON.parse(events.find((e) => e.event === 'summary')?.data ?? '{}')).toMatchObject({ stopped: 'max_bytes' })
    expect(events.at(-1)?.data).toBe('[DONE]')
    expect(await llm.requests('early-stream')).toHaveLength(1)
    expect((await tools.idle('chat-early')).calls).toBe(0)
  })
})

describe('a turn the conversation as re-sent has no room for', () => {
  // 64 KiB of conversation: the caller's 40,000 characters and a call's 30,000 do not fit together.
  const over = { LLM_MAX_BYTES: String(64 * 1024) }
  const said = [{ role: 'user', content: 'w'.repeat(40_000) }]

  it("counts the prompt's and the caller's messages: no tool is called, the provider is not asked again", async () => {
    await llm.script('early-room', [echoCall('y'.repeat(30_000))], { repeatLast: true })
    const { status, body, sent, toolCalls } = await chat('early-room', { messages: said }, over)
    expect(status).toBe(200)
    // Before: the loop's budget counted its own additions only, and the call was made.
    expect(body).toMatchObject({ stopped: 'max_bytes', steps: [] })
    expect([sent.length, toolCalls]).toEqual([1, 0])
  })

  it('a turn that fits is made, with the room it leaves for its answer', async () => {
    await llm.script('early-fits', [echoCall('y'.repeat(20_000)), { content: 'done' }])
    const { body, sent, toolCalls } = await chat('early-fits', { messages: said }, over)
    expect(body).not.toHaveProperty('stopped')
    expect([sent.length, toolCalls]).toEqual([2, 1])
    // The echo (the 20,000 characters again, and more) passed what was left: the model was told so instead.
    const answer = (await llm.requests('early-fits'))[1]?.body as { messages: { role: string; content: string }[] }
    expect(answer.messages.at(-1)?.content).toMatch(
      /^error: the answer \(\d+ characters\) is more than the conversation/,
    )
    expect(Math.max(...sent)).toBeLessThan(64 * 1024 + 4096)
  })
})
