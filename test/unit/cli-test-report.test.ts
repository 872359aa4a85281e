// How `test` and `promote` print a prompt-test report: a line per case with
// its failures' expected and actual, the counts, the Markdown of a CI job's
// summary, and the report a 409 TESTS_FAILED carries.
import { describe, expect, it } from 'vitest'
import { RemoteError } from '../../cli/remote'
import { failedTests, reportLines, reportMarkdown } from '../../cli/test-report'
import type { TestReport } from '../../lib/prompt-tests/types'
import { REPORT } from '../support/prompt-test-report'

describe('reportLines', () => {
  it('prints a line per case, the failures indented below with expected and actual, then the counts', () => {
    expect(reportLines(REPORT)).toEqual([
      'pass     team.review  "names the language"  12 ms',
      'fail     team.review  "says | rust"  3 ms',
      '    contains',
      '      expected: "rust"',
      '      actual:   "Review this go code:\\nx := 1"',
      'skipped  team.review  "judged"  0 ms (assert_answer needs a model)',
      'error    evaluator.quick_review  "reads the store"  5 ms: STORE_UNAVAILABLE: Redis did not answer',
      '4 cases: 1 passed, 1 failed, 1 skipped, 1 error',
    ])
  })

  it('quotes values that are not text as JSON', () => {
    const report: TestReport = {
      passed: 0,
      failed: 1,
      skipped: 0,
      errors: 0,
      cases: [
        {
          prompt: 'a.b',
          name: 'short',
          result: 'fail',
          failures: [{ assert: 'max-chars', expected: 10, actual: 42 }],
          ms: 1,
        },
      ],
    }
    expect(reportLines(report).slice(1, 4)).toEqual(['    max-chars', '      expected: 10', '      actual:   42'])
  })
})

describe('reportMarkdown', () => {
  it('heads the summary with the outcome and counts, tables the cases, and details those that did not pass', () => {
    const markdown = reportMarkdown(REPORT, 'Prompt tests of label feat-x')
    const lines = markdown.split('\n')
    expect(lines[0]).toBe('### ❌ Prompt tests of label feat-x')
    expect(lines).toContain('4 cases: 1 passed, 1 failed, 1 skipped, 1 error')
    expect(lines).toContain('| ❌ fail | `team.review` | says \\| rust | 3 |')
    expect(lines).toContain('- `contains`: expected `"rust"`, actual `"Review this go code:\\nx := 1"`')
    expect(lines).toContain(
      '**error** `evaluator.quick_review` reads the store: STORE_UNAVAILABLE: Redis did not answer',
    )
    expect(markdown).not.toContain('**pass**')
  })

  it('fences code holding backticks with a longer run of them', () => {
    const report: TestReport = {
      passed: 0,
      failed: 1,
      skipped: 0,
      errors: 0,
      cases: [
        {
          prompt: 'a.b',
          name: 'n',
          result: 'fail',
          failures: [{ assert: 'equals', expected: 'a `b`', actual: '``' }],
          ms: 1,
        },
      ],
    }
    expect(reportMarkdown(report, 't')).toContain('- `equals`: expected ``"a `b`"``, actual ```"``"```')
  })

  it('marks a run with no failure or error as passed', () => {
    const report: TestReport = { passed: 0, failed: 0, skipped: 0, errors: 0, cases: [] }
    expect(reportMarkdown(report, 'Prompt tests')).toBe(
      '### ✅ Prompt tests\n\n0 cases: 0 passed, 0 failed, 0 skipped, 0 errors\n\n',
    )
  })
})

describe('failedTests', () => {
  it('is the report of a TESTS_FAILED refusal, and nothing for another error', () => {
    const refusal = new RemoteError('TESTS_FAILED', '1 test failed', 409, { status: 'error', report: REPORT })
    expect(failedTests(refusal)).toEqual(REPORT)
    expect(failedTests(new RemoteError('CONFLICT', 'written meanwhile', 409, { report: REPORT }))).toBeUndefined()
    expect(failedTests(new RemoteError('TESTS_FAILED', 'no report', 409, {}))).toBeUndefined()
  })
})
