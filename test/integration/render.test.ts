// POST /api/prompts/{id}/render against a real Redis, with records written
// through the real Upstash client.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import evaluator from '../../examples/extensions/evaluator.json'
import { call, freshRedis, logged } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { reconciled } from '../support/reconciled'

const RULES = ['readability', 'error handling']
const PROJECT = { name: 'shop-api', files: ['main.go'] }

let db: TestRedis

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.mset({
    'shenma:extensions:evaluator': evaluator,
    'shenma:environs:vscode:rules': RULES,
    'shenma:environs:vscode:frameworks': ['gin', 'gorm'],
    'shenma:environs:vscode:programming_language': 'go',
    'shenma:environs:codebase:current_project': PROJECT,
    'shenma:templates:team:summary': {
      prompt: 'Summarise {{.args.topic}} in {{.vscode.programming_language}}.',
      parameters: [{ name: 'topic', type: 'string', required: true }],
    },
  })
})
afterAll(() => db.release())
afterEach(() => vi.useRealTimers())

const render = (id: string, body: unknown = {}, env = db.env) =>
  call(
    env,
    'POST',
    `/api/prompts/${id}/render`,
    typeof body === 'string' ? undefined : body,
    typeof body === 'string' ? body : undefined,
  )

/**
 * A prompt stored directly under `team`, rendered once. Keys written below an
 * existing variable appear once the key list read by an earlier render is 5 s
 * old, so time moves on first.
 */
async function renderDirect(name: string, record: unknown, body: unknown = {}) {
  await db.redis.set(`shenma:templates:team:${name}`, record)
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(Date.now() + 5001)
  return render(`team.${name}`, body)
}

describe('rendering', () => {
  it("renders the spec's evaluate_quality messages with the shared variables substituted", async () => {
    const { status, body, headers } = await render('evaluator.evaluate_quality')
    expect(status).toBe(200)
    expect(body).toEqual({
      status: 'success',
      rendered_prompt: [
        { role: 'system', content: evaluator.contributes.prompts[0]?.messages?.[0]?.content },
        {
          role: 'user',
          content:
            'Evaluate the project code from the following dimensions and give a quality assessment report.\n' +
            'Evaluation dimensions: readability, error handling\nRepository: (not given)\nCode context:\n{"files":["main.go"],"name":"shop-api"}',
        },
      ],
    })
    expect(headers.get('server-timing')).toMatch(/^redis;dur=\d+, tools;dur=\d+, render;dur=\d+, total;dur=\d+$/)
  })

  it('returns a string for a prompt-kind template', async () => {
    const { status, body } = await render('team.summary', { args: { topic: 'caching' } })
    expect(status).toBe(200)
    expect(body).toEqual({ status: 'success', rendered_prompt: 'Summarise caching in go.' })
  })

  it('prints an arg holding template syntax literally', async () => {
    const { body } = await render('team.summary', { args: { topic: '{{.vscode.rules}}' } })
    expect(body.rendered_prompt).toBe('Summarise {{.vscode.rules}} in go.')
  })

  it("applies defaults and gives omitted optional parameters their type's empty value", async () => {
    const { body } = await renderDirect('defaults', {
      prompt: '{{.args.lang}} {{if .args.extra}}extra{{else}}none{{end}} {{.args.n}} [{{.args.extra}}]',
      parameters: {
        lang: { type: 'string', default: 'go' },
        extra: { type: 'string' },
        n: { type: 'integer', default: 3 },
      },
    })
    expect(body.rendered_prompt).toBe('go none 3 []')
    expect(body.warnings).toBeUndefined()
  })

  const EVERY_TYPE =
    '{{.args.s}}|{{.args.i}}|{{.args.f}}|{{.args.b}}|{{.args.a}}|{{.args.o}}|{{.args.u}}|{{.args.any}}|' +
    '{{len .args.a}}{{len .args.o}}|{{toJson .args.a}}{{toJson .args.o}}|{{.args.s | default "d"}}'
  const EVERY_EMPTY = '|0|0|false|[]|map[]|0||00|[]{}|d'

  it('gives every type its empty value in a JSON Schema object of parameters, not <no value>', async () => {
    const { body } = await renderDirect('empty_schema', {
      prompt: EVERY_TYPE,
      parameters: {
        type: 'object',
        properties: {
          s: { type: 'string' },
          i: { type: 'integer' },
          f: { type: 'number' },
          b: { type: 'boolean' },
          a: { type: 'array', items: { type: 'string' } },
          o: { type: 'object' },
          u: { type: ['integer', 'null'] },
          any: { description: 'no type' },
        },
      },
    })
    expect(body.rendered_prompt, JSON.stringify(body)).toBe(EVERY_EMPTY)
    expect(body.warnings).toBeUndefined()
  })

  it('gives every type its empty value in the list form of parameters, its type names included', async () => {
    const { body } = await renderDirect('empty_list', {
      prompt: EVERY_TYPE,
      parameters: [
        { name: 's', type: 'str', required: false },
        { name: 'i', type: 'int' },
        { name: 'f', type: 'float' },
        { name: 'b', type: 'bool' },
        { name: 'a', type: 'list' },
        { name: 'o', type: 'dict' },
        { name: 'u', type: 'integer' },
        { name: 'any', type: 'whatever' },
      ],
    })
    expect(body.rendered_prompt, JSON.stringify(body)).toBe(EVERY_EMPTY)
  })

  it('warns of each action that prints <no value>, naming it and its line:col, and prints what Go prints', async () => {
    const { body } = await renderDirect(
      'no_value',
      {
        prompt: 'a {{.args.gone}}\n{{range 1000}}{{index $.vscode "nope"}}{{end}}',
        parameters: { gone: { type: 'null' } },
      },
      { args: {} },
    )
    expect(body.rendered_prompt).toBe(`a <no value>\n${'<no value>'.repeat(1000)}`)
    // One warning an action, however often it printed.
    expect(body.warnings).toEqual([
      {
        code: 'NO_VALUE',
        template: 'team.no_value',
        line: 1,
        column: 4,
        expression: '{{.args.gone}}',
        message: expect.stringMatching(/^team\.no_value:1:4: \{\{\.args\.gone\}\} printed "<no value>"/),
      },
      expect.objectContaining({ code: 'NO_VALUE', line: 2, column: 16, expression: '{{index $.vscode "nope"}}' }),
    ])
  })

  it('warns of ten <no value> actions at most', async () => {
    const { body } = await renderDirect('no_values', { prompt: '{{.args.x}}'.repeat(30) }, { args: { x: null } })
    expect(body.rendered_prompt).toBe('<no value>'.repeat(30))
    expect((body.warnings as { column: number }[]).map((w) => w.column)).toEqual(
      Array.from({ length: 10 }, (_, i) => 2 + 11 * i),
    )
  })

  it('shares one template namespace between the messages of a prompt', async () => {
    const { body } = await renderDirect(
      'shared_define',
      {
        messages: [
          { role: 'system', content: '{{define "greet"}}Hello, {{.}}!{{end}}You are helpful.' },
          { role: 'user', content: '{{template "greet" .args.name}}' },
        ],
      },
      { args: { name: 'Ada' } },
    )
    expect(body.rendered_prompt).toEqual([
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'Hello, Ada!' },
    ])
  })

  it('lets a later message redefine a template, as a later definition does in one text', async () => {
    const { body } = await renderDirect('redefine', {
      messages: [
        { role: 'system', content: '{{define "sig"}}A{{end}}{{template "sig"}}' },
        { role: 'user', content: '{{define "sig"}}B{{end}}{{template "sig"}}' },
      ],
    })
    expect(body.rendered_prompt).toEqual([
      { role: 'system', content: 'B' },
      { role: 'user', content: 'B' },
    ])
  })

  it('reads a whole subtree, and warns about a corrupt record in it without failing', async () => {
    await db.redis.mset({ 'shenma:environs:chat:title': 'Login bug', 'shenma:environs:chat:history': '[{"oops"' })
    const { status, body } = await renderDirect('chat', { prompt: '{{range $k, $v := .chat}}{{$k}}={{$v}};{{end}}' })
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('title=Login bug;')
    expect(body.warnings).toEqual([
      expect.objectContaining({ code: 'RECORD_SKIPPED', key: 'shenma:environs:chat:history' }),
    ])
  })

  it('never writes the args to the log, not even when the render fails on them', async () => {
    await db.redis.set('shenma:templates:team:leak', { prompt: '{{range .args.t}}{{.}}{{end}}' })
    const { result: failed, lines } = await logged(async () => {
      await render('team.summary', { args: { topic: 'sk-secret-value' } })
      await render('team.summary', { args: { topic: 42 } })
      return render('team.leak', { args: { t: 'sk-secret-value' } })
    })
    expect(failed.body.code).toBe('RENDER_FAILED')
    // One line per request, none with the value.
    expect(lines).toHaveLength(3)
    expect(JSON.stringify(lines)).not.toContain('sk-secret-value')
  })
})

describe('what a render reads', () => {
  it('merges keys stored below a stored variable, as GET /api/environs does', async () => {
    await db.redis.mset({ 'shenma:environs:proj': { name: 'x' }, 'shenma:environs:proj:owner': 'ada' })
    const { body } = await renderDirect('merged', { prompt: '{{with .proj}}{{.name}} {{.owner}}{{end}}' })
    expect(body.rendered_prompt, JSON.stringify(body)).toBe('x ada')
  })

  it('does not require what only an untaken branch or an index reads', async () => {
    const { status, body } = await renderDirect('branch', {
      prompt: '{{if .args.f}}{{.nothere}}{{end}}{{index .vscode "nope"}} ok',
      parameters: { f: { type: 'boolean', default: false } },
    })
    expect(status, JSON.stringify(body)).toBe(200)
    expect(body.rendered_prompt).toBe('<no value> ok')
  })

  it("loads a template call's argument the called template never reads", async () => {
    const { body } = await renderDirect('unused_arg', { prompt: '{{define "x"}}c{{end}}{{template "x" .vscode}}' })
    expect(body.rendered_prompt).toBe('c')
  })

  it('keeps two databases apart, even for the same key within 5 s', async () => {
    const other = await freshRedis()
    await other.redis.mset({
      'shenma:templates:team:summary': { prompt: 'other {{.vscode.programming_language}}' },
      'shenma:environs:vscode:programming_language': 'zig',
    })
    const mine = await render('team.summary', { args: { topic: 't' } })
    const theirs = await render('team.summary', {}, other.env)
    expect([mine.body.rendered_prompt, theirs.body.rendered_prompt]).toEqual(['Summarise t in go.', 'other zig'])
    await other.release()
  })
})

describe('caching', () => {
  it('makes no Redis request for a second render within 5 s, and sees a change 5 s later', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    // Past what earlier tests cached, however long ago on a loaded machine: this test's first render reads Redis.
    vi.setSystemTime(Date.now() + 600_000)
    await db.redis.set('shenma:environs:vscode:programming_language', 'go')
    await render('team.summary', { args: { topic: 'a' } })

    await db.resetRequests()
    const again = await render('team.summary', { args: { topic: 'b' } })
    expect(again.body.rendered_prompt).toBe('Summarise b in go.')
    expect(await db.requests()).toBe(0)

    await db.redis.set('shenma:environs:vscode:programming_language', 'rust')
    vi.setSystemTime(Date.now() + 4000)
    expect((await render('team.summary', { args: { topic: 'c' } })).body.rendered_prompt).toBe('Summarise c in go.')
    vi.setSystemTime(Date.now() + 1001)
    expect((await render('team.summary', { args: { topic: 'd' } })).body.rendered_prompt).toBe('Summarise d in rust.')
    await db.redis.set('shenma:environs:vscode:programming_language', 'go')
  })

  it('parses a prompt changed in Redis again once its 5 s are over', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    await db.redis.set('shenma:templates:team:changing', { prompt: 'one' })
    expect((await render('team.changing')).body.rendered_prompt).toBe('one')
    await db.redis.set('shenma:templates:team:changing', { prompt: 'two' })
    vi.setSystemTime(Date.now() + 5001)
    expect((await render('team.changing')).body.rendered_prompt).toBe('two')
  })

  it('sends one Redis read per expired entry however many renders miss it at once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    // Later than anything earlier tests cached, whatever their clocks did.
    vi.setSystemTime(Date.now() + 3_600_000)
    const once = async (renders: number) => {
      vi.setSystemTime(Date.now() + 5001)
      await db.resetRequests()
      const answers = await Promise.all(
        Array.from({ length: renders }, (_, i) => render('team.summary', { args: { topic: `t${i}` } })),
      )
      expect(answers.map((a) => a.body.rendered_prompt)).toEqual(
        Array.from({ length: renders }, (_, i) => `Summarise t${i} in go.`),
      )
      return db.requests()
    }
    const alone = await once(1)
    expect(alone).toBeGreaterThan(0)
    expect(await once(16)).toBe(alone)
  })

  it('reads an entry about to expire again in the background, so the first render after its expiry waits for none', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    vi.setSystemTime(Date.now() + 7_200_000)
    await render('team.summary', { args: { topic: 'a' } })
    await db.redis.set('shenma:environs:vscode:programming_language', 'rust')
    vi.setSystemTime(Date.now() + 4500)
    await db.resetRequests()
    // Still within 5 s: the cached value answers, and a read starts behind the answer.
    expect((await render('team.summary', { args: { topic: 'b' } })).body.rendered_prompt).toBe('Summarise b in go.')
    expect(await db.requests()).toBeGreaterThan(0)
    await db.resetRequests()
    vi.setSystemTime(Date.now() + 1000)
    expect((await render('team.summary', { args: { topic: 'c' } })).body.rendered_prompt).toBe('Summarise c in rust.')
    expect(await db.requests()).toBe(0)
    await db.redis.set('shenma:environs:vscode:programming_language', 'go')
  })

  it('reads the variables of a cold render in one Redis round trip', async () => {
    const cold = await freshRedis()
    await cold.redis.mset({
      'shenma:templates:team:warm': { prompt: 'warm {{.c}}' },
      'shenma:environs:c': 0,
      'shenma:templates:team:two': { prompt: '{{.a.x}} {{.b.y.z}}' },
      'shenma:environs:a:x': 1,
      'shenma:environs:b:y': { z: 2 },
    })
    // Written straight into Redis: listed once the scheduled handler ran (before it, reads walk the keyspace).
    await reconciled(cold)
    // A first render reads the tool and variable key lists, which stay fresh for the next.
    await render('team.warm', {}, cold.env)
    await cold.resetRequests()
    const { body } = await render('team.two', {}, cold.env)
    expect(body.rendered_prompt).toBe('1 2')
    // One for the prompt, one for all its variables.
    expect(await cold.requests()).toBe(2)
    await cold.release()
  })
})

describe('errors', () => {
  const cases: {
    name: string
    id: string
    record?: unknown
    body?: unknown
    status: number
    code: string
    message?: RegExp
  }[] = [
    { name: 'unknown prompt', id: 'team.nope', status: 404, code: 'NOT_FOUND' },
    {
      name: 'malformed body',
      id: 'team.summary',
      body: '{bad',
      status: 400,
      code: 'BAD_REQUEST',
      message: /not valid JSON/,
    },
    {
      name: 'args not an object',
      id: 'team.summary',
      body: { args: [1] },
      status: 400,
      code: 'BAD_REQUEST',
      message: /args/,
    },
    {
      name: 'missing required arg',
      id: 'team.summary',
      body: {},
      status: 400,
      code: 'INVALID_ARGS',
      message: /topic is required/,
    },
    {
      name: 'wrong arg type',
      id: 'team.summary',
      body: { args: { topic: 7 } },
      status: 400,
      code: 'INVALID_ARGS',
      message: /topic must be string, not number/,
    },
    {
      name: 'template syntax',
      id: 'team.bad_syntax',
      record: { prompt: 'line one\n{{.a' },
      status: 400,
      code: 'TEMPLATE_SYNTAX',
      message: /^template: team\.bad_syntax:2: unclosed action/,
    },
    {
      name: 'variable that exists nowhere, found before execution',
      id: 'team.missing',
      record: { prompt: '{{.vscode.nope}}' },
      status: 400,
      code: 'MISSING_VARIABLE',
      message: /\.vscode\.nope/,
    },
    {
      name: 'variable missing at execution',
      id: 'team.missing_dynamic',
      record: { prompt: '{{range .vscode.rules}}{{.nope}}{{end}}' },
      status: 500,
      code: 'RENDER_FAILED',
    },
    {
      name: 'key missing under a range, by missingkey=error',
      id: 'team.missing_key',
      record: { prompt: '{{range $k, $v := .codebase}}{{$v.nope}}{{end}}' },
      status: 400,
      code: 'MISSING_VARIABLE',
      message: /map has no entry for key "nope"/,
    },
    {
      name: 'execution error',
      id: 'team.exec',
      record: { prompt: '{{index .vscode.rules 10}}' },
      status: 500,
      code: 'RENDER_FAILED',
      message: /index out of range: 10/,
    },
  ]
  for (const c of cases) {
    it(`${c.name}: ${c.status} ${c.code}`, async () => {
      if (c.record) await db.redis.set(`shenma:templates:${c.id.replace('.', ':')}`, c.record)
      const { status, body } = await render(c.id, c.body ?? {})
      expect({ status, code: body.code }).toEqual({ status: c.status, code: c.code })
      if (c.message) expect(body.message).toMatch(c.message)
    })
  }

  it('unreachable Redis: 503 STORE_UNAVAILABLE', async () => {
    const env = { UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1', UPSTASH_REDIS_REST_TOKEN: 't' }
    const { status, body } = await render('team.summary', {}, env)
    expect({ status, code: body.code }).toEqual({ status: 503, code: 'STORE_UNAVAILABLE' })
  })

  it('a template that never finishes: 503 RENDER_TIMEOUT at the deadline', async () => {
    // Each level calls the next twice: 2^200 calls, far past any deadline.
    const record = {
      prompt:
        '{{define "r"}}{{if lt (len .) 200}}{{template "r" (printf "%s." .)}}{{template "r" (printf "%s." .)}}{{end}}{{end}}{{template "r" ""}}',
    }
    await db.redis.set('shenma:templates:team:forever', record)
    const { status, body } = await render('team.forever', {}, { ...db.env, RENDER_TIMEOUT_MS: '100' })
    expect({ status, code: body.code }).toEqual({ status: 503, code: 'RENDER_TIMEOUT' })
    // Where the time went: the reads of the store, then rendering, whichever took longer first.
    expect(body.message).toMatch(/^rendering did not finish within 100 ms: (.+, )?\d+ ms rendering(, .+)?$/)
    expect(body.phase).toMatch(/^(store|render)$/)
    expect(body).not.toHaveProperty('budget')
  })

  it('a loop with no end in sight: 503 RENDER_TIMEOUT by its step budget, not the clock', async () => {
    await db.redis.set('shenma:templates:team:loop', { prompt: '{{range 100000000}}{{end}}' })
    const { status, body } = await render('team.loop', {}, { ...db.env, RENDER_TIMEOUT_MS: '100' })
    expect({ status, code: body.code }).toEqual({ status: 503, code: 'RENDER_TIMEOUT' })
  })

  it('a RENDER_TIMEOUT_MS that is not a number: 503 MISCONFIGURED naming it', async () => {
    const { status, body } = await render('team.summary', {}, { ...db.env, RENDER_TIMEOUT_MS: 'soon' })
    expect({ status, body }).toEqual({
      status: 503,
      body: {
        status: 'error',
        code: 'MISCONFIGURED',
        message: "RENDER_TIMEOUT_MS must be a positive integer, got 'soon'",
        setting: 'RENDER_TIMEOUT_MS',
      },
    })
  })

  it('a Redis that stops answering: 503 RENDER_TIMEOUT at the render deadline', async () => {
    const stalled = await freshRedis()
    await stalled.stall(true)
    const { status, body } = await render('team.summary', {}, { ...stalled.env, RENDER_TIMEOUT_MS: '100' })
    await stalled.stall(false)
    await stalled.release()
    expect({ status, code: body.code }).toEqual({ status: 503, code: 'RENDER_TIMEOUT' })
  })

  it('answers 405 with Allow: POST on GET /render', async () => {
    const { status, headers } = await call(db.env, 'GET', '/api/prompts/team.summary/render')
    expect(status).toBe(405)
    expect(headers.get('allow')).toBe('POST')
  })
})
