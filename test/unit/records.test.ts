// Record decoding: each text is parsed and validated once per isolate, and
// the record it gives is shared between requests, so it must not change.
import { describe, expect, it } from 'vitest'
import { schemaValidator, validationProblems } from '../../lib/catalog'
import type { ParametersSchema } from '../../lib/catalog'
import { environValue, jsonRecord } from '../../lib/catalog/records'
import { validateTool } from '../../lib/catalog/validators.generated'

const tool = (name: string) =>
  JSON.stringify({
    name,
    module: 'm',
    type: 'restful',
    restful: { url: '/x' },
    description: 'd',
    parameters: { q: { type: 'string' } },
  })

/** `[[[...]]]`, `depth` arrays deep, as JSON text. */
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)

describe('jsonRecord', () => {
  const decode = jsonRecord(validateTool)

  it('gives the same frozen record for the same text, and a new one for a changed text', () => {
    const first = decode(tool('a'))
    const again = decode(tool('a'))
    const changed = decode(tool('b'))
    if (!first.ok || !again.ok || !changed.ok) throw new Error('the tools should decode')
    expect(again.value).toBe(first.value)
    expect(changed.value).not.toBe(first.value)
    expect(Object.isFrozen(first.value)).toBe(true)
    expect(Object.isFrozen((first.value as { parameters: { q: object } }).parameters.q)).toBe(true)
  })

  it('skips a record nested deeper than 100 levels before validating or freezing it', () => {
    const withReturns = (name: string, depth: number) => `${tool(name).slice(0, -1)}, "returns": ${nested(depth)}}`
    expect(decode(withReturns('deep', 1e6))).toEqual({ ok: false, reason: 'is nested deeper than 100 levels' })
    expect(decode(withReturns('over', 100))).toEqual({ ok: false, reason: 'is nested deeper than 100 levels' })
    // 100 levels: the record is level 1, `returns` level 2.
    expect(decode(withReturns('at', 99)).ok).toBe(true)
  })

  it('remembers why a text does not decode', () => {
    const failed = decode('{"name": 1')
    expect(failed).toMatchObject({ ok: false, reason: expect.stringMatching(/^is not valid JSON/) })
    expect(decode('{"name": 1')).toBe(failed)
  })
})

describe('environValue', () => {
  it('takes JSON, and bare text as a string', () => {
    expect(environValue('["gin"]')).toEqual({ ok: true, value: ['gin'] })
    expect(environValue('go')).toEqual({ ok: true, value: 'go' })
  })

  it('skips a value nested deeper than 100 levels, however deep', () => {
    expect(environValue(nested(100))).toMatchObject({ ok: true })
    expect(environValue(nested(101))).toEqual({ ok: false, reason: 'is nested deeper than 100 levels' })
    expect(environValue(nested(1e6))).toEqual({ ok: false, reason: 'is nested deeper than 100 levels' })
  })
})

describe('schemaValidator', () => {
  it('validates against a frozen schema, which it leaves as it was', () => {
    const schema = Object.freeze({
      type: 'object',
      properties: Object.freeze({ n: Object.freeze({ type: 'integer' }) }),
      required: Object.freeze(['n']),
    }) as unknown as ParametersSchema
    const before = JSON.stringify(schema)
    const validator = schemaValidator(schema)
    expect(validator.validate({ n: 1 }).valid).toBe(true)
    expect(validator.validate({ n: 'x' }).valid).toBe(false)
    expect(JSON.stringify(schema)).toBe(before)
  })

  it('checks a member name with a lone surrogate as JSON would carry it, rather than throwing', () => {
    const closed = { type: 'object', properties: {}, required: [], additionalProperties: false } as ParametersSchema
    const result = schemaValidator(closed).validate(JSON.parse('{"\\ud800x": 1}'))
    expect(result.valid).toBe(false)
    expect(validationProblems(result)).toEqual([{ at: ['\ufffdx'], message: 'is not allowed' }])
  })

  it('checks a value of hundreds of thousands of bad items up to its first problem, not all of them', () => {
    const numbers = { type: 'array', items: { type: 'number' } } as unknown as ParametersSchema
    const result = schemaValidator(numbers).validate(Array.from({ length: 300_000 }, () => 'x'))
    // The item's error and the `items` wrapping it.
    expect(result.errors.length).toBeLessThanOrEqual(2)
    const problems = validationProblems(result)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toEqual({ at: ['0'], message: 'must be number, not string' })
  })
})
