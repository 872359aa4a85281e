import { describe, expect, it } from 'vitest'
import { normalizeParameters } from '../../lib/catalog/parameters'
import { validatePrompt } from '../../lib/catalog/validators.generated'
import { explainInvalid } from '../../lib/catalog/validate'

describe('normalizeParameters', () => {
  it("turns the spec's list into a JSON Schema, optional unless marked required", () => {
    expect(
      normalizeParameters([
        { name: 'repo', type: 'string', default: '', description: 'Repository URL' },
        { name: 'depth', type: 'int', required: true },
        { name: 'mode', type: 'string', enum: ['fast', 'full'] },
        { name: 'opaque', type: 'Widget' },
      ]),
    ).toEqual({
      type: 'object',
      properties: {
        repo: { type: 'string', default: '', description: 'Repository URL' },
        depth: { type: 'integer' },
        mode: { type: 'string', enum: ['fast', 'full'] },
        opaque: {},
      },
      required: ['depth'],
    })
  })

  it('keeps a JSON Schema, dropping only $schema', () => {
    expect(
      normalizeParameters({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { code: { type: 'string' } },
        required: ['code'],
        additionalProperties: false,
      }),
    ).toEqual({
      type: 'object',
      properties: { code: { type: 'string' } },
      required: ['code'],
      additionalProperties: false,
    })
  })

  it('reads a plain map as properties, all optional', () => {
    expect(normalizeParameters({ symbol: { type: 'string' }, limit: { type: 'integer', default: 20 } })).toEqual({
      type: 'object',
      properties: { symbol: { type: 'string' }, limit: { type: 'integer', default: 20 } },
      required: [],
    })
  })

  it('hoists draft-3 style `required: true` from properties, in a map and in a schema', () => {
    const expected = { type: 'object', properties: { q: { type: 'string' }, n: { type: 'number' } }, required: ['q'] }
    expect(
      normalizeParameters({ q: { type: 'string', required: true }, n: { type: 'number', required: false } }),
    ).toEqual(expected)
    expect(
      normalizeParameters({
        type: 'object',
        properties: { q: { type: 'string', required: true }, n: { type: 'number' } },
      }),
    ).toEqual(expected)
  })

  it('tells a map with a parameter named `type` from a JSON Schema', () => {
    expect(normalizeParameters({ type: { type: 'string' } })).toEqual({
      type: 'object',
      properties: { type: { type: 'string' } },
      required: [],
    })
  })

  it('gives an empty object schema for absent or empty parameters', () => {
    const empty = { type: 'object', properties: {}, required: [] }
    expect(normalizeParameters(undefined)).toEqual(empty)
    expect(normalizeParameters([])).toEqual(empty)
    expect(normalizeParameters({})).toEqual(empty)
  })

  it('accepts exactly the shapes the schema accepts', () => {
    const withParameters = (parameters: unknown) =>
      explainInvalid(validatePrompt, { prompt: 'x', parameters }) === undefined
    expect(withParameters([{ name: 'a' }])).toBe(true)
    expect(withParameters({ type: 'object', properties: { a: { type: 'string' } } })).toBe(true)
    expect(withParameters({ a: { type: 'string' } })).toBe(true)
    expect(withParameters([{ type: 'string' }])).toBe(false)
    expect(withParameters({ type: 'array' })).toBe(false)
    expect(withParameters({ a: 'string' })).toBe(false)
    expect(withParameters('a, b')).toBe(false)
  })
})

describe('normalizeParameters with names from data', () => {
  it('keeps parameters named like prototype members as plain properties', () => {
    const schema = normalizeParameters([
      { name: '__proto__', type: 'string', required: true },
      { name: 'constructor', type: 'toString' },
      { name: 'x', type: '__proto__' },
    ])
    expect(Object.keys(schema.properties)).toEqual(['__proto__', 'constructor', 'x'])
    expect(Object.getOwnPropertyDescriptor(schema.properties, '__proto__')?.value).toEqual({ type: 'string' })
    expect(schema.properties.constructor).toEqual({})
    expect(schema.properties.x).toEqual({})
    expect(schema.required).toEqual(['__proto__'])
    expect(JSON.parse(JSON.stringify(normalizeParameters(JSON.parse('{"__proto__": {"type": "number"}}'))))).toEqual(
      JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "number"}}, "required": []}'),
    )
  })
})
