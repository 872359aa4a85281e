// Issue 27, rows 10 and 11, against the real Worker and the scripted LLM stand-in: a provider's error that echoes
// the request's key reaches neither the caller nor the log; a model writing megabytes into its tool calls cannot
// grow what the loop re-sends, nor the answer's `steps`; a tags answer's parsed form is bounded by the answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatEnv, fetchWorker, freshRedis, llmServer, logged } from '../support/harness'
import type { ScriptedAnswer, TestRedis } from '../support/harness'
import { restTool } from '../support/records'
import { readToEnd, sentEvents } from '../support/sse-read'
import type { Env } from '../../lib/env'

const llm = llmServer()
const KEY = 'sk-live-9d2c4e7a1b3f5061'
const CLAUDE_KEY = 'claude-key-5e6f7a8b9c0d'
let db: TestRedis
let env: Env

beforeAll(async () => {
  db = await freshRedis()
  const origin = new URL(llm.url).origin
  const LLM_ROUTES = JSON.stringify({ claude: { api: 'anthropic', baseURL: origin, apiKeyVar: 'CLAUDE_KEY' } })
  env = chatEnv(db, { LLM_API_KEY: KEY, LLM_ROUTES, ...({ CLAUDE_KEY } as Env) })
  await db.redis.mset({
    'shenma:tools:refs:lookup': restTool('refs', 'lookup', 'http://127.0.0.1:1/never/{symbol}', {
      parameters: { symbol: { type: 'string', required: true }, limit: { type: 'integer' } },
    }),
    'shenma:templates:team:ask': { prompt: 'Answer.' },
    'shenma:templates:team:rate': { prompt: 'Rate Foo.', tools: ['refs_lookup'] },
    'shenma:templates:team:build': {
      prompt: 'Build it.',
      returns: { format: 'tags', tags: ['actions', 'read', 'code', 'task'] },
    },
  })
})
afterAll(() => db.release())

/** A chat's answer as the client gets it: its status, its bytes (all ASCII here) and its JSON when it is JSON. */
async function chat(id: string, body: Record<string, unknown>, over: Env = {}) {
  const res = await fetchWorker({ ...env, ...over }, `/api/prompts/${id}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const { text } = await readToEnd(res)
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> }
}

describe("a provider's error that echoes the request's key", () => {
  const echo = (key: string) =>
    `Invalid request: header {"Authorization": "Bearer ${key}", "x-api-key": "${key}"}, ` +
    `proxy auth Basic ${btoa(`user:${key}`)}; ${'details '.repeat(500)}`

  it('reaches the caller without the key, clipped, and the log without it', async () => {
    await llm.script('echo-400', [{ status: 400, error: echo(KEY) }])
    const { result, lines } = await logged(() => chat('team.ask', { model: 'echo-400' }))
    expect(result.status).toBe(400)
    const { code, message } = result.json() as { code: string; message: string }
    expect(code).toBe('LLM_REJECTED')
    expect(message).toContain('Bearer [redacted]')
    expect(message).not.toContain(KEY)
    expect(message).not.toContain(btoa(`user:${KEY}`).slice(8, 24))
    // The provider's words are one line of 300 characters at most, after the service's own.
    expect(message.length).toBeLessThan(400)
    expect(JSON.stringify(lines)).not.toContain(KEY)
    expect((await llm.requests('echo-400'))[0]?.authorization).toBe(`Bearer ${KEY}`)
  })

  it("through the native Anthropic adapter: the route's own key is redacted too", async () => {
    await llm.script('claude', [{ status: 400, error: echo(CLAUDE_KEY) }])
    const { status, json } = await chat('team.ask', { model: 'claude' })
    expect(status).toBe(400)
    expect(JSON.stringify(json())).not.toContain(CLAUDE_KEY)
    expect(JSON.stringify(json())).toContain('[redacted]')
  })

  it('after retries (502 LLM_FAILED, whose message the log line keeps), and on a stream', async () => {
    await llm.script('echo-500', [{ status: 500, error: echo(KEY) }], { repeatLast: true })
    const { result, lines } = await logged(() => chat('team.ask', { model: 'echo-500' }))
    expect(result.status).toBe(502)
    expect(result.json()).toMatchObject({ code: 'LLM_FAILED' })
    expect(result.text).toContain('[redacted]')
    expect(result.text).not.toContain(KEY)
    const line = lines.find((l) => l.msg === 'request')
    expect(JSON.stringify(line?.error)).toContain('[redacted]')
    expect(JSON.stringify(lines)).not.toContain(KEY)

    const streamed = await chat('team.ask', { model: 'echo-500', stream: true })
    expect(streamed.status).toBe(502)
    expect(streamed.text).not.toContain(KEY)
  })
})

describe('a model writing megabytes into its tool calls', () => {
  const BIG = 3_900_000
  // `limit` must be an integer: each call fails its validation without a request, and the loop goes on.
  const args = JSON.stringify({ symbol: 'Foo', limit: 'x'.repeat(BIG) })
  const bigCall: ScriptedAnswer = { tool_calls: [{ id: 'call_1', name: 'refs_lookup', arguments: args }] }
  /** Characters every request of a model sent, as JSON. */
  const sentChars = async (model: string) => (await llm.requests(model)).map((r) => JSON.stringify(r.body).length)

  it('re-sends its arguments once, then the loop stops with `stopped: max_bytes`; `steps` echo 4 KiB of them', async () => {
    await llm.script('big-args', [bigCall], { repeatLast: true })
    // Arguments past CHAT_ARGUMENTS_MAX_BYTES (1 MiB) end the loop at once (hardening-chat-early.test.ts):
    // raised here, the conversation's own budget stops the loop.
    const over = { CHAT_ARGUMENTS_MAX_BYTES: String(4 * 1024 * 1024) }
    const { status, text, json } = await chat('team.rate', { model: 'big-args' }, over)
    expect(status).toBe(200)
    const body = json()
    expect(body.stopped).toBe('max_bytes')
    // Before the bound, with the default 4 rounds: 5 requests re-sending 0, 3.9, 7.8, 11.7 and 15.6 MB (39 MB).
    const sent = await sentChars('big-args')
    expect(sent).toHaveLength(2)
    expect(sent.reduce((a, b) => a + b, 0)).toBeLessThan(BIG + 64 * 1024)
    // The answer: the provider's last completion (its 3.9 MB call) and one step echoing 4 KiB of the arguments.
    expect(text.length).toBeLessThan(BIG + 64 * 1024)
    const [step] = body.steps as { calls: Record<string, unknown>[] }[]
    expect(step?.calls[0]).toMatchObject({ outcome: 'failed', arguments_chars: args.length })
    expect(String(step?.calls[0]?.arguments)).toHaveLength(4096 + 3)
  })

  it('streamed, the same: two requests, a summary saying why it stopped', async () => {
    // A smaller LLM_MAX_BYTES, the same shape: the stand-in takes its time to cut megabytes into chunks.
    const over = { LLM_MAX_BYTES: String(1024 * 1024) }
    const small = JSON.stringify({ symbol: 'Foo', limit: 'x'.repeat(950_000) })
    await llm.script('big-args-stream', [{ tool_calls: [{ id: 'c', name: 'refs_lookup', arguments: small }] }], {
      repeatLast: true,
    })
    const { status, text } = await chat('team.rate', { model: 'big-args-stream', stream: true }, over)
    expect(status).toBe(200)
    const events = sentEvents(text)
    const summary = events.find((e) => e.event === 'summary')
    expect(JSON.parse(summary?.data ?? '{}')).toMatchObject({ stopped: 'max_bytes' })
    expect(events.at(-1)?.data).toBe('[DONE]')
    const sent = await sentChars('big-args-stream')
    expect(sent).toHaveLength(2)
    expect(sent.reduce((a, b) => a + b, 0)).toBeLessThan(small.length + 64 * 1024)
    expect(text.length).toBeLessThan(small.length + 64 * 1024)
  })
})

describe('a 3.5 MB answer in tags', () => {
  it('is answered with a parsed form no bigger than the answer plus 64 KiB', async () => {
    const content = `<actions>\n${'rm -rf /\n'.repeat(3_500_000 / 9)}</actions>`
    await llm.script('big-tags', [{ content }])
    const { status, text, json } = await chat('team.build', { model: 'big-tags' })
    expect(status).toBe(200)
    const { message } = (json().choices as { message: Record<string, unknown> }[])[0] as {
      message: { parsed: unknown; parse_warnings: string[] }
    }
    const said = JSON.stringify(content).length
    // Before the bound: 34 MB, 390,000 commands each with its reason.
    expect(JSON.stringify(message.parsed).length).toBeLessThan(said + 64 * 1024 + 1024)
    expect(text.length).toBeLessThan(2 * said + 128 * 1024)
    expect(message.parse_warnings).toEqual([
      expect.stringMatching(/^an <actions> block lists its first \d+ commands only: the parsed form holds/),
    ])
  })
})
