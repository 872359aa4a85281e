// Prompt tests' pieces that need no render: the text assertions, and the
// checks of `tests` a write and `validate` make (jsonschema/prompt.json and
// lib/catalog/tests.ts).
import { describe, expect, it } from 'vitest'
import { checkRecords } from '../../lib/catalog'
import { checkText } from '../../lib/prompt-tests'

const prompt = (tests: unknown) => ({
  file: 'p.json',
  kind: 'templates' as const,
  key: 'shenma:templates:a:b',
  value: { prompt: 'x', tests },
})
const errorsOf = async (tests: unknown, maxCases?: number) =>
  (await checkRecords([prompt(tests)], { maxCases })).errors.map((e) => `${e.where} ${e.message}`)

describe('checkText', () => {
  it('holds or fails each text assertion, saying what was expected and what the text was', () => {
    expect(checkText({ type: 'equals', value: 'ab' }, 'ab')).toBeUndefined()
    expect(checkText({ type: 'equals', value: 'ab' }, 'abc')).toEqual({
      assert: 'equals',
      expected: 'ab',
      actual: 'abc',
    })
    expect(checkText({ type: 'contains', value: 'b' }, 'abc')).toBeUndefined()
    expect(checkText({ type: 'not-contains', value: 'b' }, 'abc')).toEqual({
      assert: 'not-contains',
      expected: 'no "b"',
      actual: 'abc',
    })
    expect(checkText({ type: 'matches', value: '^a.c$' }, 'abc')).toBeUndefined()
    expect(checkText({ type: 'matches', value: '^b' }, 'abc')?.assert).toBe('matches')
    expect(checkText({ type: 'max-chars', value: 2 }, 'abc')).toEqual({
      assert: 'max-chars',
      expected: 'at most 2 characters',
      actual: '3 characters',
    })
  })

  it('clips the texts it quotes to 500 characters', () => {
    const failure = checkText({ type: 'contains', value: 'z' }, 'a'.repeat(10_000))
    expect(failure?.actual).toBe(`${'a'.repeat(500)}...`)
  })
})

describe('tests, checked as a write and validate check them', () => {
  it('accepts every assertion type with its fields', async () => {
    const tests = [
      {
        name: 'all',
        args: { a: 1 },
        variables: { vscode: { x: 1 } },
        tools: { m_t: { refs: [] } },
        assert: [
          { type: 'equals', value: '' },
          { type: 'contains', value: 'x' },
          { type: 'not-contains', value: 'y' },
          { type: 'matches', value: '^x[0-9]*$' },
          { type: 'max-chars', value: 10 },
          { type: 'no-warnings' },
          { type: 'fails-with', value: 'MISSING_VARIABLE' },
        ],
        assert_answer: [
          { type: 'json-schema', schema: { type: 'object' } },
          { type: 'tags', value: ['answer'] },
          { type: 'judge', rubric: 'is polite', model: 'm' },
        ],
        model: 'gpt',
      },
    ]
    expect(await errorsOf(tests)).toEqual([])
  })

  it('refuses an unknown assertion type, a field another type has, and a render-only type among answer assertions', async () => {
    expect(await errorsOf([{ name: 'a', assert: [{ type: 'sounds-nice' }] }])).toEqual([
      expect.stringContaining('$.tests[0].assert[0].type'),
    ])
    expect((await errorsOf([{ name: 'a', assert: [{ type: 'contains', value: 'x', rubric: 'y' }] }])).join()).toContain(
      '$.tests[0].assert[0]',
    )
    expect((await errorsOf([{ name: 'a', assert_answer: [{ type: 'fails-with', value: 'X' }] }])).join()).toContain(
      '$.tests[0].assert_answer[0].type',
    )
  })

  it('refuses a matches pattern whose matching could backtrack super-linearly, in either list', async () => {
    const errors = await errorsOf([
      { name: 'a', assert: [{ type: 'matches', value: '(a+)+$' }], assert_answer: [{ type: 'matches', value: 'a*b' }] },
    ])
    expect(errors).toEqual([
      expect.stringMatching(/^\$\.tests\[0\]\.assert\[0\]\.value is a regular expression that /),
      expect.stringMatching(/^\$\.tests\[0\]\.assert_answer\[0\]\.value is a regular expression that /),
    ])
  })

  it('refuses two cases of one name, and more cases than TEST_MAX_CASES when it is known', async () => {
    expect(await errorsOf([{ name: 'a' }, { name: 'a' }])).toEqual(['$.tests[1].name names another case of the prompt'])
    const three = [{ name: 'a' }, { name: 'b' }, { name: 'c' }]
    expect(await errorsOf(three, 2)).toEqual(['$.tests holds 3 cases, more than TEST_MAX_CASES (2)'])
    expect(await errorsOf(three)).toEqual([])
  })
})
