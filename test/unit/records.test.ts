// Record decoding: each text is parsed and validated once per isolate, and
// the record it gives is shared between requests, so it must not change.
import { describe, expect, it } from 'vitest'
import { parametersValidator } from '../../lib/catalog'
import type { ParametersSchema } from '../../lib/catalog'
import { jsonRecord } from '../../lib/catalog/records'
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

  it('remembers why a text does not decode', () => {
    const failed = decode('{"name": 1')
    expect(failed).toMatchObject({ ok: false, reason: expect.stringMatching(/^is not valid JSON/) })
    expect(decode('{"name": 1')).toBe(failed)
  })
})

describe('parametersValidator', () => {
  it('validates against a frozen schema, which it leaves as it was', () => {
    const schema = Object.freeze({
      type: 'object',
      properties: Object.freeze({ n: Object.freeze({ type: 'integer' }) }),
      required: Object.freeze(['n']),
    }) as unknown as ParametersSchema
    const before = JSON.stringify(schema)
    const validator = parametersValidator(schema)
    expect(validator.validate({ n: 1 }).valid).toBe(true)
    expect(validator.validate({ n: 'x' }).valid).toBe(false)
    expect(JSON.stringify(schema)).toBe(before)
  })
})
