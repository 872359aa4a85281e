import { casesProblems } from '../catalog'
import { ServiceError } from '../errors'
import type { TestSettings } from '../settings'
import type { TestCase } from './types'

/**
 * Test cases a request gives (to run instead of a prompt's own), checked as
 * a prompt's `tests` are at write: 400 BAD_REQUEST naming what is wrong.
 */
export function checkedCases(tests: unknown, settings: TestSettings): TestCase[] {
  const problems = casesProblems(tests, settings.maxCases)
  if (problems.length > 0) {
    const said = problems.map((p) => `${p.path} ${p.problem}`).join('; ')
    throw new ServiceError('BAD_REQUEST', `the test cases are not valid: ${said}`)
  }
  return tests as TestCase[]
}
