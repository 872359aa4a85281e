// Issue 27 follow-up: an answer too costly to check against `returns`
// (MAX_VALIDATION_WORK) is the model's fault, not the caller's: it is an
// invalid answer (asked again, then 502 LLM_INVALID_OUTPUT), never a 422.
import { describe, expect, it } from 'vitest'
import { checkAnswer } from '../../lib/chat/returns'
import { MAX_VALIDATION_WORK, safeSchema, workOf } from '../../lib/catalog/schema-safety'

describe('an answer past the validation work limit', () => {
  it('is an invalid answer naming the limit, not an error', () => {
    const branches = Array.from({ length: 100 }, (_, i) => ({ const: i }))
    const schema = { type: 'object', properties: { xs: { type: 'array', items: { anyOf: branches } } } }
    const answer = { xs: Array.from({ length: 30_000 }, () => 1) }
    const safe = safeSchema(schema)
    if ('keyword' in safe) throw new Error(safe.problem)
    expect(workOf(safe.cost, answer)).toBeGreaterThan(MAX_VALIDATION_WORK)
    const checked = checkAnswer(schema, JSON.stringify(answer))
    expect(checked.ok).toBe(false)
    expect(!checked.ok && checked.errors).toEqual([expect.stringMatching(/units of work, more than/)])
  })
})
