import type { TestReport } from '../../lib/prompt-tests/types'

/** A report with a case of each result: a pass, a fail with its failure, a skip with its reason, an error. */
export const REPORT: TestReport = {
  passed: 1,
  failed: 1,
  skipped: 1,
  errors: 1,
  cases: [
    { prompt: 'team.review', name: 'names the language', result: 'pass', failures: [], ms: 12 },
    {
      prompt: 'team.review',
      name: 'says | rust',
      result: 'fail',
      failures: [{ assert: 'contains', expected: 'rust', actual: 'Review this go code:\nx := 1' }],
      ms: 3,
    },
    {
      prompt: 'team.review',
      name: 'judged',
      result: 'skipped',
      failures: [],
      ms: 0,
      reason: 'assert_answer needs a model',
    },
    {
      prompt: 'evaluator.quick_review',
      name: 'reads the store',
      result: 'error',
      failures: [],
      ms: 5,
      error: { code: 'STORE_UNAVAILABLE', message: 'Redis did not answer' },
    },
  ],
}
