// A prompt test's answer assertions (lib/prompt-tests/answer.ts), called
// directly inside workerd: prompts rendered from real Redis, answered and
// judged by the scripted LLM server the test setup started.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { ServiceError } from '../../lib/errors'
import { answerChecker } from '../../lib/prompt-tests/answer'
import { JUDGE_INSTRUCTIONS } from '../../lib/prompt-tests/judge'
import type { AnswerChecker, TestCase, TestReport } from '../../lib/prompt-tests/types'
import { renderPrompt } from '../../lib/render'
import { settingsFrom } from '../../lib/settings'
import { openStore } from '../../lib/store'
import { call, chatEnv, freshRedis, llmServer } from '../support/harness'
import type { TestRedis } from '../support/harness'

const llm = llmServer()
let db: TestRedis
let env: Env

const SCORE = {
  type: 'object',
  properties: { score: { type: 'integer' } },
  required: ['score'],
  additionalProperties: false,
}

beforeAll(async () => {
  db = await freshRedis()
  env = chatEnv(db, { LLM_OUTPUT_RETRIES: '1' })
  await db.redis.mset({
    'shenma:templates:team:rate': {
      prompt: 'Rate {{.args.topic}} from 1 to 5.',
      parameters: [{ name: 'topic', type: 'string', required: true }],
    },
    'shenma:templates:team:scored': { prompt: 'Score the weather as JSON.', returns: SCORE },
    'shenma:templates:team:plan': {
      prompt: 'Plan the release.',
      returns: { format: 'tags', tags: ['plan', 'actions'] },
    },
    'shenma:templates:team:tested': {
      prompt: 'Score {{.args.topic}} as JSON.',
      parameters: [{ name: 'topic', type: 'string', required: true }],
      tests: [
        {
          name: 'json',
          args: { topic: 'tea' },
          model: 'case-run',
          assert_answer: [{ type: 'json-schema', schema: SCORE }],
        },
        {
          name: 'five',
          args: { topic: 'tea' },
          model: 'case-run',
          assert: [{ type: 'contains', value: 'tea' }],
          assert_answer: [{ type: 'contains', value: 'five' }],
        },
      ],
    },
  })
})
afterAll(() => db.release())

/** A run's checker over `over`'s settings, and a check of one case of `id` rendered with `args`. */
function checkerOf(over: Env = {}): AnswerChecker {
  const settings = settingsFrom({ ...env, ...over })
  const checker = answerChecker({ store: openStore(settings.redis), settings, renderOptions: settings.render })
  if (!checker) throw new Error('no checker where an LLM is configured')
  return checker
}

async function check(checker: AnswerChecker, id: string, testCase: TestCase, args = {}) {
  const settings = settingsFrom(env)
  const rendered = await renderPrompt(openStore(settings.redis), id, args, settings.render)
  return checker.check(id, rendered, testCase)
}

describe('answer assertions', () => {
  it('pass a json-schema with its own schema, and a text assertion, on the answer the rendered prompt got', async () => {
    await llm.script('case-json', [{ content: '{"score": 4}' }])
    const checked = await check(
      checkerOf(),
      'team.rate',
      {
        name: 'rates',
        model: 'case-json',
        assert_answer: [
          { type: 'json-schema', schema: SCORE },
          { type: 'contains', value: 'score' },
        ],
      },
      { topic: 'tea' },
    )
    expect(checked).toEqual({ failures: [] })
    const sent = await llm.requests('case-json')
    expect(sent.map((r) => r.body.messages)).toEqual([[{ role: 'user', content: 'Rate tea from 1 to 5.' }]])
  })

  it("fail a json-schema with the answer's problems listed in actual", async () => {
    await llm.script('case-json', [{ content: '{"score": "high"}' }])
    const checked = await check(
      checkerOf(),
      'team.rate',
      { name: 'rates', model: 'case-json', assert_answer: [{ type: 'json-schema', schema: SCORE }] },
      { topic: 'tea' },
    )
    expect(checked.failures).toEqual([
      {
        assert: 'json-schema',
        expected: "JSON matching the assertion's schema",
        actual: [expect.stringMatching(/score/)],
      },
    ])
  })

  it("check the prompt's returns when the json-schema names none: an answer refused after the chat's retries fails", async () => {
    await llm.script('case-json', [{ content: 'sunny' }], { repeatLast: true })
    const checked = await check(checkerOf(), 'team.scored', {
      name: 'json',
      model: 'case-json',
      assert_answer: [{ type: 'json-schema' }],
    })
    expect(checked.failures).toEqual([
      {
        assert: 'returns',
        expected: "an answer matching the prompt's returns schema",
        actual: ['the answer is not JSON'],
      },
    ])
    // The chat's own retry (LLM_OUTPUT_RETRIES=1), then no more.
    expect(await llm.requests('case-json')).toHaveLength(2)
  })

  it('refuse a json-schema with no schema where returns is none, or with a schema that could freeze validation, before asking a model', async () => {
    await llm.reset('case-json')
    const checking = check(
      checkerOf(),
      'team.rate',
      { name: 'json', model: 'case-json', assert_answer: [{ type: 'json-schema' }] },
      { topic: 'tea' },
    )
    await expect(checking).rejects.toMatchObject({ code: 'BAD_REQUEST', message: /no schema/ })
    const hazard = check(
      checkerOf(),
      'team.rate',
      {
        name: 'json',
        model: 'case-json',
        assert_answer: [{ type: 'json-schema', schema: { type: 'string', pattern: '^(a+)+$' } }],
      },
      { topic: 'tea' },
    )
    await expect(hazard).rejects.toMatchObject({ code: 'BAD_REQUEST', message: /could freeze the service/ })
    expect(await llm.requests('case-json')).toHaveLength(0)
  })

  it('check tags in the tag-parsed answer: present ones pass, a missing one fails naming what was found', async () => {
    await llm.script('case-tags', [{ content: 'First <plan>ship it</plan> then <actions>npm test</actions>' }], {
      repeatLast: true,
    })
    const checker = checkerOf()
    const held = await check(checker, 'team.plan', {
      name: 'tags',
      model: 'case-tags',
      assert_answer: [{ type: 'tags', value: ['plan', 'actions'] }],
    })
    expect(held).toEqual({ failures: [] })
    const missing = await check(checker, 'team.plan', {
      name: 'tags',
      model: 'case-tags',
      assert_answer: [{ type: 'tags', value: ['plan', 'code'] }],
    })
    expect(missing.failures).toEqual([{ assert: 'tags', expected: ['plan', 'code'], actual: ['plan', 'actions'] }])
  })

  it('send the rubric and the answer to the judge model, and pass on its verdict', async () => {
    await llm.script('case-text', [{ content: 'Tea rates a 4.' }])
    await llm.script('judge-model', [{ content: '{"pass": true, "reason": "one sentence"}' }])
    const checked = await check(
      checkerOf({ TEST_JUDGE_MODEL: 'judge-model' }),
      'team.rate',
      { name: 'judged', model: 'case-text', assert_answer: [{ type: 'judge', rubric: 'answers in one sentence' }] },
      { topic: 'tea' },
    )
    expect(checked).toEqual({ failures: [] })
    const [sent, ...more] = await llm.requests('judge-model')
    expect(more).toHaveLength(0)
    expect(sent?.body.messages).toEqual([
      { role: 'system', content: JUDGE_INSTRUCTIONS },
      { role: 'user', content: 'Rubric:\nanswers in one sentence\n\nAnswer:\nTea rates a 4.' },
    ])
  })

  it("fail on the judge's fail, its reason the actual; the assertion's model before TEST_JUDGE_MODEL", async () => {
    await llm.script('case-text', [{ content: 'Tea. Rates. A four.' }])
    await llm.script('strict-judge', [{ content: '```json\n{"pass": false, "reason": "three sentences"}\n```' }])
    await llm.reset('judge-model')
    const checked = await check(
      checkerOf({ TEST_JUDGE_MODEL: 'judge-model' }),
      'team.rate',
      {
        name: 'judged',
        model: 'case-text',
        assert_answer: [{ type: 'judge', rubric: 'answers in one sentence', model: 'strict-judge' }],
      },
      { topic: 'tea' },
    )
    expect(checked.failures).toEqual([
      { assert: 'judge', expected: 'answers in one sentence', actual: 'three sentences' },
    ])
    expect(await llm.requests('strict-judge')).toHaveLength(1)
    expect(await llm.requests('judge-model')).toHaveLength(0)
  })

  it('make a verdict that is not JSON an error (LLM_INVALID_OUTPUT), not a pass or a fail', async () => {
    await llm.script('case-text', [{ content: 'Tea rates a 4.' }])
    await llm.script('judge-model', [{ content: 'Looks fine to me!' }])
    const checking = check(
      checkerOf({ TEST_JUDGE_MODEL: 'judge-model' }),
      'team.rate',
      { name: 'judged', model: 'case-text', assert_answer: [{ type: 'judge', rubric: 'answers in one sentence' }] },
      { topic: 'tea' },
    )
    await expect(checking).rejects.toBeInstanceOf(ServiceError)
    await expect(checking).rejects.toMatchObject({ code: 'LLM_INVALID_OUTPUT', message: /not JSON/ })
    expect(await llm.requests('judge-model')).toHaveLength(1)
  })

  it('skip judges past TEST_MAX_JUDGE_CALLS in one checker (one run), saying so', async () => {
    await llm.script('case-text', [{ content: 'Tea rates a 4.' }], { repeatLast: true })
    await llm.script('judge-model', [{ content: '{"pass": true, "reason": "fine"}' }], { repeatLast: true })
    const checker = checkerOf({ TEST_JUDGE_MODEL: 'judge-model', TEST_MAX_JUDGE_CALLS: '1' })
    const judged: TestCase = {
      name: 'judged',
      model: 'case-text',
      assert_answer: [{ type: 'judge', rubric: 'answers in one sentence' }],
    }
    expect(await check(checker, 'team.rate', judged, { topic: 'tea' })).toEqual({ failures: [] })
    const past = await check(checker, 'team.rate', judged, { topic: 'tea' })
    expect(past.failures).toEqual([])
    expect(past.skipped).toMatch(/TEST_MAX_JUDGE_CALLS \(1\)/)
    expect(await llm.requests('judge-model')).toHaveLength(1)
  })

  it('is no checker where no LLM is configured, and skips a case no model answers', async () => {
    const { LLM_BASE_URL: _url, ...unconfigured } = env
    const settings = settingsFrom(unconfigured)
    expect(answerChecker({ store: openStore(settings.redis), settings, renderOptions: settings.render })).toBe(
      undefined,
    )
    const checked = await check(
      checkerOf(),
      'team.rate',
      { name: 'no model', assert_answer: [{ type: 'contains', value: 'x' }] },
      { topic: 'tea' },
    )
    expect(checked).toEqual({ failures: [], skipped: expect.stringMatching(/LLM_DEFAULT_MODEL/) })
  })

  it("answer POST /api/prompts/{id}/test's report: a stored prompt's cases, one passing and one failing on its answer", async () => {
    await llm.script('case-run', [{ content: '{"score": 2}' }], { repeatLast: true })
    const { status, body } = await call(env, 'POST', '/api/prompts/team.tested/test', {})
    expect(status, JSON.stringify(body)).toBe(200)
    const report = body.data as TestReport
    expect(report).toMatchObject({ passed: 1, failed: 1, skipped: 0, errors: 0 })
    expect(report.cases.map(({ name, result, failures }) => ({ name, result, failures }))).toEqual([
      { name: 'json', result: 'pass', failures: [] },
      { name: 'five', result: 'fail', failures: [{ assert: 'contains', expected: 'five', actual: '{"score": 2}' }] },
    ])
    expect(await llm.requests('case-run')).toHaveLength(2)
  })
})
