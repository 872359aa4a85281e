// What the playground asks of the API (issue 35): a draft's own variables,
// tools and returns; the shared variables an explained render read, with
// their values and age; the analysis of a render that failed. Against a real
// Redis and the real tool server.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { call, chatEnv, fetchWorker, freshRedis, llmServer, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { restTool } from '../support/records'
import { sentEvents } from '../support/sse-read'

const tools = toolServer()
const llm = llmServer()
let db: TestRedis

const LONG = 'x'.repeat(5000)

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.mset({
    'shenma:environs:vscode:programming_language': 'go',
    'shenma:environs:vscode:rules': ['readability'],
    'shenma:environs:big:text': LONG,
    'shenma:tools:pg:broken': restTool('pg', 'broken', `${tools.url}/status/500/tools/b?group=pg`),
    'shenma:tools:pg:lookup': restTool('pg', 'lookup', `${tools.url}/tools/pg/{symbol}?group=pg-chat`, {
      parameters: { symbol: { type: 'string', required: true } },
    }),
    'shenma:templates:team:summary': {
      prompt: 'Summarise {{.args.topic}} in {{.vscode.programming_language}}.',
      parameters: { topic: { type: 'string' } },
    },
  })
})
afterAll(() => db.release())
afterEach(() => vi.useRealTimers())

const draft = (body: unknown, query = '') => call(db.env, 'POST', `/api/render${query}`, body)

describe('a draft render with its own variables', () => {
  it('lays them over the shared variables for this render only, and writes nothing', async () => {
    const before = (await db.redis.keys('*')).sort()
    const { status, body } = await draft({
      prompt: '{{.vscode.programming_language}} {{.vscode.rules}} {{.team.name}}',
      variables: { vscode: { programming_language: 'rust' }, team: { name: 'core' } },
    })
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('rust [readability] core')
    expect((await db.redis.keys('*')).sort()).toEqual(before)
    const again = await draft({ prompt: '{{.vscode.programming_language}}' })
    expect(again.body.rendered_prompt).toBe('go')
  })

  it('refuses variables that are not an object, naming them', async () => {
    for (const variables of [['a'], 'a', 1]) {
      const { status, body } = await draft({ prompt: 'x', variables })
      expect(status).toBe(400)
      expect(body.message).toContain('variables')
    }
  })

  it('takes tools and returns as a stored record does, checked as one', async () => {
    const ok = await draft({ prompt: 'x', tools: ['pg_broken'], returns: { type: 'object' } })
    expect(ok.status).toBe(200)
    const bad = await draft({ prompt: 'x', tools: 'pg_broken' })
    expect(bad.status).toBe(400)
    expect(bad.body.message).toContain('tools')
  })
})

describe("an explained render's variables", () => {
  it('lists each shared path read, in order, with its value, missing, overridden or previewed', async () => {
    const { status, body } = await draft({
      // A path read in a branch not taken may be missing.
      prompt: '{{.vscode.programming_language}}{{if .args.a}}{{len .big.text}}{{else}}{{.team.name}}{{end}}',
      variables: { vscode: { programming_language: 'rust' } },
      parameters: { a: { type: 'integer' } },
      args: { a: 1 },
    })
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('rust5000')
    const reads = (body.analysis as { reads: string[] }).reads
    const variables = body.variables as Record<string, unknown>[]
    expect(variables.map((v) => v.path)).toEqual(reads.filter((r) => !r.startsWith('args')))
    const byPath = Object.fromEntries(variables.map((v) => [v.path, v]))
    expect(byPath['vscode.programming_language']).toEqual({
      path: 'vscode.programming_language',
      value: 'rust',
      overridden: true,
      age_ms: 0,
    })
    expect(byPath['team.name']).toEqual({ path: 'team.name', missing: true, age_ms: 0 })
    const big = byPath['big.text'] as Record<string, unknown>
    expect(big).toMatchObject({ path: 'big.text', truncated: true, age_ms: 0 })
    expect(big.value).toBeUndefined()
    expect(big.preview).toBe(JSON.stringify(LONG).slice(0, 2000))
  })

  it('says how old the copy is: 0 when the render read Redis, its age when a cached copy served', async () => {
    const prompt = '{{.vscode.rules}}'
    const first = await draft({ prompt, args: {} }, '?label=aged')
    expect((first.body.variables as { age_ms: number }[])[0]?.age_ms).toBe(0)
    const requests = await db.requests()
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 3000)
    const second = await draft({ prompt, args: {} }, '?label=aged')
    expect(await db.requests()).toBe(requests)
    expect((second.body.variables as { age_ms: number }[])[0]?.age_ms).toBeGreaterThanOrEqual(3000)
  })

  it('is in the stored render with ?explain=true, and not without it', async () => {
    const path = '/api/prompts/team.summary/render'
    const explained = await call(db.env, 'POST', `${path}?explain=true`, { args: { topic: 't' } })
    expect(explained.body.variables).toEqual([
      { path: 'vscode.programming_language', value: 'go', age_ms: expect.any(Number) },
    ])
    const plain = await call(db.env, 'POST', path, { args: { topic: 't' } })
    expect(plain.body.variables).toBeUndefined()
  })
})

describe("an explained render's failure", () => {
  it('carries the analysis once the template compiled', async () => {
    const invalidArgs = await draft({
      prompt: '{{.args.n}} {{pg_broken 1}}',
      parameters: { n: { type: 'integer' } },
      args: { n: 'x' },
    })
    expect(invalidArgs.body).toMatchObject({
      code: 'INVALID_ARGS',
      analysis: { reads: ['args.n'], tools: ['pg_broken'], functions: ['pg_broken'] },
    })
    const missing = await draft({ prompt: '{{.nope.x}}' })
    expect(missing.body).toMatchObject({ code: 'MISSING_VARIABLE', analysis: { reads: ['nope.x'] } })
    const stored = await call(db.env, 'POST', '/api/prompts/team.summary/render?explain=true', { args: { topic: 1 } })
    expect(stored.body).toMatchObject({
      code: 'INVALID_ARGS',
      analysis: { reads: ['args.topic', 'vscode.programming_language'] },
    })
  })

  it('carries none when the template does not compile, nor when not explained', async () => {
    const syntax = await draft({ prompt: '{{.args.x' })
    expect(syntax.body.code).toBe('TEMPLATE_SYNTAX')
    expect(syntax.body.analysis).toBeUndefined()
    const plain = await call(db.env, 'POST', '/api/prompts/team.summary/render', { args: { topic: 1 } })
    expect(plain.body.code).toBe('INVALID_ARGS')
    expect(plain.body.analysis).toBeUndefined()
  })
})

describe('a chat with a draft and variables', () => {
  const chat = (body: Record<string, unknown>) =>
    call(chatEnv(db), 'POST', '/api/prompts/team.summary/chat', { model: 'draft-chat', ...body })

  it('renders the draft over the stored record, its variables laid over the shared ones, with no version', async () => {
    await llm.script('draft-chat', [{ content: 'fine' }])
    const { status, headers } = await chat({
      args: { topic: 'caching' },
      draft: { messages: [{ role: 'system', content: 'About {{.args.topic}} in {{.vscode.programming_language}}.' }] },
      variables: { vscode: { programming_language: 'zig' } },
    })
    expect(status).toBe(200)
    expect(headers.get('X-Prompt-Version')).toBeNull()
    const [sent] = await llm.requests('draft-chat')
    expect(sent?.body.messages).toEqual([{ role: 'system', content: 'About caching in zig.' }])
    // The stored record's parameters were kept: they check the args.
    await llm.script('draft-chat', [{ content: 'fine' }])
    const refused = await chat({ args: { topic: 3 }, draft: { prompt: '{{.args.topic}}' } })
    expect(refused.body.code).toBe('INVALID_ARGS')
    expect(await llm.requests('draft-chat')).toHaveLength(0)
  })

  it('refuses a draft that is no prompt record as the draft render does, asking no model', async () => {
    await llm.script('draft-chat', [{ content: 'fine' }])
    const { status, body } = await chat({ args: { topic: 'x' }, draft: { parameters: 'n' } })
    expect(status).toBe(400)
    expect(body).toMatchObject({ code: 'BAD_REQUEST' })
    expect(body.message).toContain('$.parameters')
    expect(await llm.requests('draft-chat')).toHaveLength(0)
  })

  it("streams the tool round's results, then a summary of the steps and the usage summed", async () => {
    await llm.script('draft-stream', [
      { tool_calls: [{ id: 'call_1', name: 'pg_lookup', arguments: '{"symbol":"Foo"}' }] },
      { content: 'done' },
    ])
    const res = await fetchWorker(chatEnv(db), '/api/prompts/team.summary/chat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'draft-stream',
        stream: true,
        args: { topic: 'x' },
        draft: { tools: ['pg_lookup'] },
      }),
    })
    const events = sentEvents(await res.text())
    const [round] = await llm.requests('draft-stream')
    expect(round?.body.stream_options).toEqual({ include_usage: true })
    const step = JSON.parse(events.find((e) => e.event === 'step')?.data ?? '{}')
    expect(step.step.calls).toEqual([
      expect.objectContaining({ tool: 'pg_lookup', outcome: 'ok', result: expect.stringContaining('/tools/pg/Foo') }),
    ])
    const names = events.map((e) => e.event ?? e.data)
    expect(names.slice(-2)).toEqual(['summary', '[DONE]'])
    const summary = JSON.parse(events.at(-2)?.data ?? '{}')
    expect(summary).toMatchObject({
      steps: 1,
      usage: { prompt_tokens: 14, completion_tokens: 6, total_tokens: 20 },
    })
  })
})
