// Issue 27 follow-up: a validation's work bound counts what matching a
// `pattern` (or `patternProperties`) costs. An unanchored pattern the
// regex rules accept, `a{0,999}b`, backtracks through ~1,000 steps a
// character: 100 of them in an `anyOf` over 20,000 letters took 22 s of CPU
// while counted as 126,000 units, far under the limit.
import { describe, expect, it } from 'vitest'
import { schemaValidator, validationProblems } from '../../lib/catalog/parameters'
import { EVERY_PROBLEM_WORK, MAX_VALIDATION_WORK, safeSchema, workOf } from '../../lib/catalog/schema-safety'
import type { SafeSchema } from '../../lib/catalog/schema-safety'

function safe(schema: unknown): SafeSchema {
  const checked = safeSchema(schema)
  if ('keyword' in checked) throw new Error(checked.problem)
  return checked
}

describe('the work of matching patterns', () => {
  it('an unanchored pattern with bounded choices counts them, per character', () => {
    const value = 'a'.repeat(20_000)
    expect(workOf(safe({ type: 'string', pattern: 'a{0,999}b' }).cost, value)).toBeGreaterThan(MAX_VALIDATION_WORK)
    // Anchored, it is tried at one position: linear.
    expect(workOf(safe({ type: 'string', pattern: '^a{0,999}b' }).cost, value)).toBeLessThan(10_000)
  })

  it("patternProperties' patterns meet every member's name", () => {
    const value = { ['a'.repeat(20_000)]: 1 }
    const schema = { type: 'object', patternProperties: { 'a{0,999}b': { type: 'number' } } }
    expect(workOf(safe(schema).cost, value)).toBeGreaterThan(MAX_VALIDATION_WORK)
  })

  it('an ordinary pattern on an ordinary value stays cheap', () => {
    const schema = { type: 'array', items: { type: 'string', pattern: '\\d{3}-\\d{4}' } }
    const value = Array.from({ length: 10_000 }, () => 'call 555-1234 now')
    expect(workOf(safe(schema).cost, value)).toBeLessThan(MAX_VALIDATION_WORK / 4)
  })
})

describe('a value whose problems would cost more than EVERY_PROBLEM_WORK to gather', () => {
  // Every bad item is an error object, which costs far more than an item checked.
  const schema = { type: 'array', items: { type: 'number' } }
  const strings = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`)

  it('is checked up to its first problem', () => {
    const value = strings(200_000)
    expect(workOf(safe(schema).cost, value)).toBeGreaterThan(EVERY_PROBLEM_WORK)
    const result = schemaValidator(schema).validate(value)
    expect(result.valid).toBe(false)
    expect(validationProblems(result)).toEqual([{ at: ['0'], message: 'must be number, not string' }])
  })

  it('while a smaller one still has every problem reported', () => {
    const value = strings(50)
    expect(workOf(safe(schema).cost, value)).toBeLessThan(EVERY_PROBLEM_WORK)
    expect(validationProblems(schemaValidator(schema).validate(value))).toHaveLength(50)
  })
})
