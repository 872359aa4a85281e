// Prompt tests (lib/prompt-tests) through their routes, POST /api/prompts/{id}/test
// and POST /api/test, against a real Redis and the real tool server: what a
// case's variables and fixed tools change, what a failure reports, the
// bounds checked at write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { ADMIN, call, fetchWorker, toolServer, writableRedis } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'
import { restTool } from '../support/records'

const tools = toolServer()
let db: TestRedis
let env: Env

const GROUP = 'prompt-tests'
const REVIEW = 'Review {{.args.code}} in {{.vscode.programming_language}}; refs {{(pt_lookup .args.code).refs}}'

const review = {
  prompt: REVIEW,
  parameters: { code: { type: 'string' } },
  tests: [
    {
      name: 'names the language',
      args: { code: 'x := 1' },
      tools: { pt_lookup: { refs: ['a.go:1'] } },
      assert: [{ type: 'contains', value: 'in go' }, { type: 'matches', value: '^Review x' }, { type: 'no-warnings' }],
    },
    {
      name: 'a case of its own world',
      args: { code: 'y' },
      variables: { vscode: { programming_language: 'rust' } },
      tools: { pt_lookup: { refs: ['b.rs:9'] } },
      assert: [{ type: 'equals', value: 'Review y in rust; refs [b.rs:9]' }],
    },
    {
      name: 'asks for python',
      args: { code: 'z' },
      tools: { pt_lookup: { refs: [] } },
      assert: [
        { type: 'contains', value: 'python' },
        { type: 'max-chars', value: 1000 },
      ],
    },
  ],
}

beforeAll(async () => {
  ;({ db, env } = await writableRedis())
  await db.redis.mset({
    'shenma:environs:vscode:programming_language': 'go',
    'shenma:environs:vscode:rules': ['readability'],
    'shenma:tools:pt:lookup': restTool('pt', 'lookup', `${tools.url}/tools/lookup?group=${GROUP}`),
    'shenma:templates:pt:review': review,
    'shenma:templates:pt:strict': {
      prompt: 'Follow {{.vscode.style}}',
      tests: [
        { name: 'needs a style', assert: [{ type: 'fails-with', value: 'MISSING_VARIABLE' }] },
        { name: 'renders anyway', assert: [{ type: 'contains', value: 'Follow' }] },
        {
          name: 'with a style',
          variables: { vscode: { style: 'gofmt' } },
          assert: [
            { type: 'equals', value: 'Follow gofmt' },
            { type: 'fails-with', value: 'MISSING_VARIABLE' },
          ],
        },
      ],
    },
    'shenma:templates:pt:answered': {
      prompt: 'Say {{index .vscode.rules 0}}',
      tests: [{ name: 'answers in JSON', assert_answer: [{ type: 'json-schema' }] }],
    },
    'shenma:templates:pt:untested': { prompt: 'nothing to test' },
  })
})
afterAll(() => db.release())

const test = (id: string, body?: unknown, query = '') => call(env, 'POST', `/api/prompts/${id}/test${query}`, body)

interface Report {
  passed: number
  failed: number
  skipped: number
  errors: number
  cases: { prompt: string; name: string; result: string; failures: unknown[]; reason?: string; error?: unknown }[]
}

const reportOf = (answer: Answer) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  expect(answer.body.status).toBe('success')
  return answer.body.data as Report
}

async function put(path: string, body: unknown): Promise<Answer> {
  const init = {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }
  const res = await fetchWorker(env, path, init)
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> }
}

describe('POST /api/prompts/{id}/test', () => {
  it("runs the prompt's cases: its variables and fixed tools change the render, and the fixed tool is not called", async () => {
    await tools.reset(GROUP)
    const report = reportOf(await test('pt.review'))
    expect(report).toMatchObject({ passed: 2, failed: 1, skipped: 0, errors: 0 })
    expect(report.cases.map((c) => [c.prompt, c.name, c.result])).toEqual([
      ['pt.review', 'names the language', 'pass'],
      ['pt.review', 'a case of its own world', 'pass'],
      ['pt.review', 'asks for python', 'fail'],
    ])
    expect((await tools.stats(GROUP)).calls).toBe(0)
  })

  it('reports a failing contains with what was expected and what the render was', async () => {
    const report = reportOf(await test('pt.review', { names: ['asks for python'] }))
    expect(report.cases).toEqual([
      expect.objectContaining({
        result: 'fail',
        failures: [{ assert: 'contains', expected: 'python', actual: 'Review z in go; refs []' }],
      }),
    ])
  })

  it("leaves the shared variables and the prompt's plan as they were: a render afterwards reads the stored world", async () => {
    await tools.reset(GROUP)
    const rendered = await call(env, 'POST', '/api/prompts/pt.review/render', { args: { code: 'q' } })
    expect(rendered.status).toBe(400)
    // The real tool answers (an echo of its request, which has no `refs`), not the case's fixed answer.
    expect(rendered.body.code).toBe('MISSING_VARIABLE')
    expect((await tools.stats(GROUP)).calls).toBe(1)
  })

  it('passes fails-with on the code the render fails with, and reports a render that fails unexpectedly', async () => {
    const report = reportOf(await test('pt.strict'))
    expect(report).toMatchObject({ passed: 1, failed: 2 })
    const [needs, anyway, styled] = report.cases
    expect(needs?.result).toBe('pass')
    expect(anyway?.failures).toEqual([
      { assert: 'render', expected: 'a rendered prompt', actual: expect.stringMatching(/^MISSING_VARIABLE: .*style/) },
    ])
    expect(styled?.failures).toEqual([
      { assert: 'fails-with', expected: 'MISSING_VARIABLE', actual: 'rendered without an error' },
    ])
  })

  it('skips answer assertions when no model is configured, saying how to configure one', async () => {
    const report = reportOf(await test('pt.answered'))
    expect(report).toMatchObject({ passed: 0, failed: 0, skipped: 1, errors: 0 })
    expect(report.cases[0]?.reason).toBe(
      'assert_answer needs a model: set LLM_BASE_URL (or LLM_ROUTES) and LLM_DEFAULT_MODEL',
    )
  })

  it('tests a draft, with cases given in the body, storing nothing', async () => {
    const before = (await db.redis.keys('*')).sort()
    const draft = {
      prompt: 'Hi {{.args.who}}, {{.vscode.programming_language}}',
      parameters: { who: { type: 'string' } },
    }
    const tests = [
      { name: 'greets', args: { who: 'Ann' }, assert: [{ type: 'equals', value: 'Hi Ann, go' }] },
      { name: 'not rude', args: { who: 'Bo' }, assert: [{ type: 'not-contains', value: 'Bo,' }] },
    ]
    const report = reportOf(await test('pt.review', { draft, tests }))
    expect(report.cases.map((c) => [c.name, c.result])).toEqual([
      ['greets', 'pass'],
      ['not rude', 'fail'],
    ])
    expect(report.cases[1]?.failures).toEqual([{ assert: 'not-contains', expected: 'no "Bo,"', actual: 'Hi Bo, go' }])
    expect((await db.redis.keys('*')).sort()).toEqual(before)
  })

  it('runs only the cases named, and refuses a name no case has', async () => {
    const report = reportOf(await test('pt.review', { names: ['a case of its own world'] }))
    expect(report.cases.map((c) => c.name)).toEqual(['a case of its own world'])
    const unknown = await test('pt.review', { names: ['no such case'] })
    expect(unknown.status).toBe(400)
    expect(unknown.body.message).toContain('"no such case"')
  })

  it('reports a case fixing a tool the templates do not call as an error', async () => {
    const tests = [{ name: 'stray', args: { code: 'a' }, tools: { pt_lookup: {}, pt_other: 1 } }]
    const report = reportOf(await test('pt.review', { tests }))
    expect(report).toMatchObject({ errors: 1 })
    expect(report.cases[0]?.error).toEqual({
      code: 'BAD_REQUEST',
      message: 'the case fixes the answer of pt_other, which the templates do not call',
    })
  })

  it('refuses cases given in the body that the schema refuses, and an unknown prompt', async () => {
    const unknownType = await test('pt.review', { tests: [{ name: 'x', assert: [{ type: 'sounds-nice' }] }] })
    expect(unknownType.status).toBe(400)
    expect(unknownType.body.message).toContain('$.tests[0].assert[0].type')
    expect((await test('pt.nothing')).status).toBe(404)
  })
})

describe('POST /api/test', () => {
  it('runs every prompt that has tests, as the label sees them', async () => {
    await db.redis.set('shenma:labels:feat:environs:vscode:programming_language', 'rust')
    const base = reportOf(await call(env, 'POST', '/api/test'))
    expect(new Set(base.cases.map((c) => c.prompt))).toEqual(new Set(['pt.answered', 'pt.review', 'pt.strict']))
    expect(base.passed + base.failed + base.skipped + base.errors).toBe(base.cases.length)
    const feat = reportOf(await call(env, 'POST', '/api/test?label=feat', { ids: ['pt.review'] }))
    // Under the label the language is rust: the case that names go fails there.
    expect(feat.cases.map((c) => c.result)).toEqual(['fail', 'pass', 'fail'])
  })
})

describe('tests kept with a prompt, at write', () => {
  it('refuses a matches pattern that could backtrack super-linearly', async () => {
    const record = { prompt: 'x', tests: [{ name: 'slow', assert: [{ type: 'matches', value: '(a+)+$' }] }] }
    const { status, body } = await put('/api/prompts/pt.slow', record)
    expect(status).toBe(400)
    expect(body.message).toContain('$.tests[0].assert[0].value')
  })

  it('refuses more cases than TEST_MAX_CASES, and two cases of one name', async () => {
    const cases = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `case ${i}` }))
    const many = await put('/api/prompts/pt.many', { prompt: 'x', tests: cases(51) })
    expect(many.status).toBe(400)
    expect(many.body.message).toContain('more than TEST_MAX_CASES (50)')
    const twice = await put('/api/prompts/pt.twice', { prompt: 'x', tests: [{ name: 'a' }, { name: 'a' }] })
    expect(twice.status).toBe(400)
    expect(twice.body.message).toContain('$.tests[1].name: names another case')
    expect((await put('/api/prompts/pt.fifty', { prompt: 'x', tests: cases(50) })).status).toBe(200)
  })

  it('answers the cases with the prompt', async () => {
    const { body } = await call(env, 'GET', '/api/prompts/pt.strict')
    expect((body.data as { tests: { name: string }[] }).tests.map((t) => t.name)).toEqual([
      'needs a style',
      'renders anyway',
      'with a style',
    ])
    const untested = await call(env, 'GET', '/api/prompts/pt.untested')
    expect((untested.body.data as { tests: unknown[] }).tests).toEqual([])
  })
})
