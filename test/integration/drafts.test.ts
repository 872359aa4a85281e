// POST /api/render (drafts: a template given in the body, rendered as a stored
// one is, storing nothing) and `?explain=true` on the stored render, against a
// real Redis and the real tool server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, freshRedis, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { restTool } from '../support/records'

const tools = toolServer()
let db: TestRedis

const VSCODE = { programming_language: 'go', rules: ['readability'] }

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.mset({
    'shenma:environs:vscode:programming_language': VSCODE.programming_language,
    'shenma:environs:vscode:rules': VSCODE.rules,
    'shenma:labels:feat:environs:vscode:programming_language': 'rust',
    'shenma:tools:drafts:slow': restTool('drafts', 'slow', `${tools.url}/delay/50/tools/slow?group=drafts`),
    'shenma:tools:drafts:broken': restTool('drafts', 'broken', `${tools.url}/status/500/tools/b?group=drafts`),
    // A tool named like a helper: `upper`.
    'shenma:tools:upper': { ...restTool('', 'upper', `${tools.url}/text/tools/upper`), module: 'upper' },
    'shenma:templates:team:summary': { prompt: 'Summarise {{.args.topic}} in {{.vscode.programming_language}}.' },
  })
})
afterAll(() => db.release())

const draft = (body: unknown, query = '') => call(db.env, 'POST', `/api/render${query}`, body)

describe('POST /api/render', () => {
  it('renders a draft with helpers, and says what it reads', async () => {
    const { status, body } = await draft({
      prompt: '{{toJson .vscode}} {{fence "go" .args.code}}',
      args: { code: 'a' },
    })
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe(`${JSON.stringify(VSCODE)} \`\`\`go\na\n\`\`\``)
    expect(body.analysis).toEqual({ reads: ['args.code', 'vscode'], tools: [], functions: ['fence', 'toJson'] })
  })

  it('calls a tool named like a helper rather than the helper', async () => {
    const { status, body } = await draft({ prompt: '{{upper "shout"}} {{lower "QUIET"}}' })
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('plain answer quiet')
    expect(body.analysis).toMatchObject({ tools: ['upper'] })
  })

  it('stores nothing', async () => {
    const before = (await db.redis.keys('*')).sort()
    expect((await draft({ prompt: '{{.vscode.rules}}' })).status).toBe(200)
    expect((await db.redis.keys('*')).sort()).toEqual(before)
  })

  it('renders messages, which share their definitions', async () => {
    const { status, body } = await draft({
      messages: [
        {
          role: 'system',
          content: '{{define "lang"}}{{.vscode.programming_language}}{{end}}You review {{template "lang" .}}.',
        },
        { role: 'user', content: 'Is {{.args.code}} idiomatic {{template "lang" .}}?' },
      ],
      args: { code: 'x := 1' },
    })
    expect(status).toBe(200)
    expect(body.rendered_prompt).toEqual([
      { role: 'system', content: 'You review go.' },
      { role: 'user', content: 'Is x := 1 idiomatic go?' },
    ])
  })

  it('reads the shared variables the label sees', async () => {
    const { body } = await draft({ prompt: '{{.vscode.programming_language}}' }, '?label=feat')
    expect(body.rendered_prompt).toBe('rust')
  })

  it('checks args against parameters in each of the three shapes', async () => {
    const list = await draft({ prompt: '{{.args.n}}', parameters: [{ name: 'n', type: 'int', required: true }] })
    expect(list.status).toBe(400)
    expect(list.body).toMatchObject({ code: 'INVALID_ARGS' })
    expect(list.body.message).toContain('n')

    const map = await draft({ prompt: '{{.args.n}}', parameters: { n: { type: 'string', default: 'from-map' } } })
    expect(map.body.rendered_prompt).toBe('from-map')

    const schema = await draft({
      prompt: '{{.args.n}}',
      parameters: { type: 'object', properties: { n: { type: 'integer' } } },
      args: { n: 'seven' },
    })
    expect(schema.status).toBe(400)
    expect(schema.body).toMatchObject({ code: 'INVALID_ARGS' })
  })

  it('times each tool call, ok or failed, from the start of the request', async () => {
    const { status, body } = await draft({ prompt: '{{drafts_slow "a"}}|{{drafts_broken "b"}}' })
    expect(status).toBe(200)
    expect(body.warnings).toEqual([expect.objectContaining({ code: 'TOOL_FAILED', tool: 'drafts_broken' })])
    const timing = body.timing as { total_ms: number; phases: Record<string, number>; calls: Record<string, unknown>[] }
    expect(Object.keys(timing.phases).sort()).toEqual(['redis', 'render', 'tools'])
    const byTool = Object.fromEntries(timing.calls.map((c) => [c.tool, c]))
    expect(byTool.drafts_slow).toEqual({
      tool: 'drafts_slow',
      start_ms: expect.any(Number),
      ms: expect.any(Number),
      outcome: 'ok',
    })
    expect(byTool.drafts_broken).toMatchObject({ outcome: 'failed' })
    // The server waited 50 ms before answering: the call cannot have taken less.
    expect(byTool.drafts_slow?.ms).toBeGreaterThanOrEqual(50)
    expect(timing.total_ms).toBeGreaterThanOrEqual(byTool.drafts_slow?.ms as number)
    expect(body.analysis).toMatchObject({ tools: ['drafts_broken', 'drafts_slow'] })
  })

  it('names the line and column of a template that does not parse', async () => {
    const { status, body } = await draft({ prompt: 'Hello\n{{.args.x' })
    expect(status).toBe(400)
    expect(body).toMatchObject({ code: 'TEMPLATE_SYNTAX', template: 'draft', line: 2 })
    expect(body.message).toMatch(/^template: draft:2/)
  })

  it('refuses a function that is neither a builtin, a helper nor a tool', async () => {
    const { status, body } = await draft({ prompt: '{{no_such_tool 1}}' })
    expect(status).toBe(400)
    expect(body).toMatchObject({ code: 'TEMPLATE_SYNTAX' })
    expect(body.message).toContain('"no_such_tool" not defined')
  })

  it('refuses a draft that is not a prompt record, naming what is wrong', async () => {
    const both = await draft({ prompt: 'a', messages: [{ role: 'user', content: 'b' }] })
    expect(both.status).toBe(400)
    expect(both.body).toMatchObject({ code: 'BAD_REQUEST' })
    const neither = await draft({ args: {} })
    expect(neither.status).toBe(400)
    expect(neither.body.message).toMatch(/prompt|messages/)
    const badParameters = await draft({ prompt: 'a', parameters: 'n' })
    expect(badParameters.status).toBe(400)
    expect(badParameters.body.message).toContain('$.parameters')
  })

  it('refuses a regular expression in its parameters, which would run in the shared isolate', async () => {
    const catastrophic = '^(a+)+$'
    for (const parameters of [
      [{ name: 'n', type: 'string', pattern: catastrophic }],
      { type: 'object', properties: { n: { type: 'array', items: { type: 'string', pattern: catastrophic } } } },
      { type: 'object', properties: {}, patternProperties: { [catastrophic]: { type: 'string' } } },
    ]) {
      const { status, body } = await draft({
        prompt: 'x',
        parameters,
        args: { n: `${'a'.repeat(20)}!` },
      })
      expect(status).toBe(400)
      expect(body).toMatchObject({ code: 'BAD_REQUEST' })
      expect(body.message).toMatch(/regular expression, and \$\.parameters\.\S*pattern/)
    }
    // A parameter named `pattern`, and `pattern` inside data, are no regular expressions.
    const named = await draft({
      prompt: '{{.args.pattern}}',
      parameters: { pattern: { type: 'object', default: { pattern: '(a+)+' } } },
    })
    expect(named.status).toBe(200)
    expect(named.body.rendered_prompt).toBe('map[pattern:(a+)+]')
  })

  it('fails as the stored render does on a missing variable', async () => {
    const { status, body } = await draft({ prompt: '{{.nope.x}}' })
    expect(status).toBe(400)
    expect(body).toMatchObject({ code: 'MISSING_VARIABLE' })
  })
})

describe('?explain=true on the stored render', () => {
  it('adds the analysis and the timing; without it, neither', async () => {
    const path = '/api/prompts/team.summary/render'
    const explained = await call(db.env, 'POST', `${path}?explain=true`, { args: { topic: 'x' } })
    expect(explained.status).toBe(200)
    expect(explained.body.rendered_prompt).toBe('Summarise x in go.')
    expect(explained.body.analysis).toEqual({
      reads: ['args.topic', 'vscode.programming_language'],
      tools: [],
      functions: [],
    })
    expect(explained.body.timing).toMatchObject({ calls: [], phases: { redis: expect.any(Number) } })
    expect(explained.headers.get('X-Prompt-Version')).toBe('unversioned')

    const plain = await call(db.env, 'POST', path, { args: { topic: 'x' } })
    expect(Object.keys(plain.body).sort()).toEqual(['rendered_prompt', 'status'])
  })
})
