import { isObject } from '../json'
import { regexHazard, regexWork } from './regex-safety'
import type { SchemaProblem } from './validate'
import { schemaProblems } from './validate'
import { validatePrompt } from './validators.generated'

/**
 * What jsonschema/prompt.json cannot see of a prompt's `tests` valid against
 * it: a `matches` pattern whose matching could backtrack super-linearly
 * (regexHazard, the rule a JSON Schema's `pattern` follows) or costing
 * too much at each of the text's positions (MAX_MATCH_WORK), two cases of
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
        const hazard = matchHazard(assertion.value)
        if (hazard)
          problems.push({ path: `${at}.${list}[${j}].value`, problem: `is a regular expression that ${hazard}` })
      })
    }
  })
  return problems
}

/**
 * Steps a `matches` pattern may take per character of the text (regexWork):
 * a render's text may be megabytes, so a pattern tried at every position
 * must be cheap at each (`error: .{0,20}$` is 21 choices of 13 characters).
 */
const MAX_MATCH_WORK = 1000

/** Why a `matches` pattern is refused: regexHazard's rule, then its work per character. */
function matchHazard(pattern: string): string | undefined {
  const hazard = regexHazard(pattern)
  if (hazard) return hazard
  const work = regexWork(pattern)
  if (work > MAX_MATCH_WORK)
    return `may take ${work} steps per character of the text (its bounded quantifiers' choices times its length, tried at every position), more than ${MAX_MATCH_WORK}: anchor it with ^ or narrow its quantifiers`
  return undefined
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
