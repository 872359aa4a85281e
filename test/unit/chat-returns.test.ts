// A prompt's `returns` as /chat reads it (lib/chat/returns.ts): when it is a JSON Schema, what the model is
// asked for, and how its answer is checked.
import { describe, expect, it } from 'vitest'
import { checkAnswer, responseFormat, returnsSchema } from '../../lib/chat/returns'
import type { JsonSchema } from '../../lib/catalog'

const score: JsonSchema = {
  type: 'object',
  properties: { score: { type: 'number' }, summary: { type: 'string' } },
  required: ['score', 'summary'],
  additionalProperties: false,
}

describe('returns', () => {
  it('is a JSON Schema when it says so, and documentation otherwise', () => {
    expect(returnsSchema({ prompt: 'x', returns: score })).toBe(score)
    expect(returnsSchema({ prompt: 'x', returns: { enum: ['yes', 'no'] } })).toEqual({ enum: ['yes', 'no'] })
    // The spec's list of return definitions, an empty object, the tags format, nothing at all.
    for (const returns of [[], {}, { format: 'tags', tags: ['code'], type: 'object' }, 'text', undefined]) {
      expect(returnsSchema({ prompt: 'x', returns })).toBeUndefined()
    }
  })

  it('asks for JSON of the schema, strictly where strict mode takes the schema', () => {
    expect(responseFormat({ $schema: 'http://json-schema.org/draft-07/schema#', ...score }, 'team.rate-it.v2')).toEqual(
      {
        type: 'json_schema',
        json_schema: { name: 'team_rate-it_v2', schema: score, strict: true },
      },
    )
    const guided = (schema: JsonSchema) => (responseFormat(schema, 'p').json_schema as { strict: boolean }).strict
    expect(guided({ ...score, required: ['score'] })).toBe(false) // strict needs every property required
    expect(guided({ ...score, additionalProperties: true })).toBe(false)
    expect(
      guided({ ...score, properties: { ...(score.properties as object), score: { type: 'number', minimum: 0 } } }),
    ).toBe(false)
    expect(guided({ type: 'array', items: { type: 'string' } })).toBe(false) // the root must be an object
    expect(
      guided({
        type: 'object',
        properties: {
          refs: {
            type: 'array',
            items: {
              type: 'object',
              properties: { at: { type: 'string' } },
              required: ['at'],
              additionalProperties: false,
            },
          },
          kind: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        },
        required: ['refs', 'kind'],
        additionalProperties: false,
      }),
    ).toBe(true)
    expect(
      guided({
        type: 'object',
        properties: { inner: { type: 'object', properties: { a: { type: 'string' } } } },
        required: ['inner'],
        additionalProperties: false,
      }),
    ).toBe(false) // a nested object left open
  })

  it('checks an answer: parsed when it matches, each problem named by its path when not', () => {
    expect(checkAnswer(score, '{"score": 7, "summary": "fine"}')).toEqual({
      ok: true,
      value: { score: 7, summary: 'fine' },
    })
    expect(checkAnswer(score, '{"score": "high", "extra": 1}')).toEqual({
      ok: false,
      errors: ['$.summary is required', '$.score must be number, not string', '$.extra is not allowed'],
    })
    expect(checkAnswer(score, 'The score is 7')).toEqual({ ok: false, errors: ['the answer is not JSON'] })
    expect(checkAnswer(score, null)).toEqual({ ok: false, errors: ['the answer has no text content'] })
  })

  it('lists ten problems at most', () => {
    const many: JsonSchema = { type: 'array', items: { type: 'number' } }
    const result = checkAnswer(many, JSON.stringify(Array.from({ length: 50 }, (_, i) => `n${i}`)))
    expect(result.ok).toBe(false)
    expect(!result.ok && result.errors).toHaveLength(10)
    expect(!result.ok && result.errors[0]).toBe('$[0] must be number, not string')
  })
})
