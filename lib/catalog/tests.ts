import { isObject } from '../json'
import { regexHazard } from './regex-safety'
import type { SchemaProblem } from './validate'
import { schemaProblems } from './validate'
import { validatePrompt } from './validators.generated'

/**
 * What jsonschema/prompt.json cannot see of a prompt's `tests` valid against
 * it: a `matches` pattern whose matching could backtrack super-linearly
 * (regexHazard, the rule a JSON Schema's `pattern` follows), two cases of
 * one name, and, when the service's TEST_MAX_CASES is known (a write),
 * more cases than it.
 */
export function testsProblems(tests: unknown, path: string, maxCases?: number): SchemaProblem[] {
  if (!Array.isArray(tests)) return []
  const problems: SchemaProblem[] = []
  if (maxCases !== undefined && tests.length > maxCases)
    problems.push({ path, problem: `holds ${tests.length} cases, more than TEST_MAX_CASES (${maxCases})` })
  const names = new Set<unknown>()
  tests.forEach((testCase: unknown, i) => {
    if (!isObject(testCase)) return
    const at = `${path}[${i}]`
    if (names.has(testCase.name)) problems.push({ path: `${at}.name`, problem: 'names another case of the prompt' })
    names.add(testCase.name)
    for (const list of ['assert', 'assert_answer'] as const) {
      const asserts = testCase[list]
      if (!Array.isArray(asserts)) continue
      asserts.forEach((assertion: unknown, j) => {
        if (!isObject(assertion) || assertion.type !== 'matches' || typeof assertion.value !== 'string') return
        const hazard = regexHazard(assertion.value)
        if (hazard)
          problems.push({ path: `${at}.${list}[${j}].value`, problem: `is a regular expression that ${hazard}` })
      })
    }
  })
  return problems
}

/**
 * Test cases given apart from a prompt (a request's own), checked as a
 * prompt's `tests` are: by the prompt schema's definition of them, then by
 * testsProblems. Each problem worded with its path in `tests`.
 */
export function casesProblems(tests: unknown, maxCases: number): SchemaProblem[] {
  // The prompt's schema is where a case is defined: a minimal prompt carries them through it.
  const problems = schemaProblems(validatePrompt, { prompt: '', tests })
  return problems.length > 0 ? problems : testsProblems(tests, '$.tests', maxCases)
}
