import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ServiceError } from '../../lib/errors'
import { normalizeParameters, schemaValidator } from '../../lib/catalog/parameters'
import { regexHazard } from '../../lib/catalog/regex-safety'
import { MAX_VALIDATION_WORK, safeSchema, workOf } from '../../lib/catalog/schema-safety'
import type { SchemaHazard } from '../../lib/catalog/schema-safety'

/** `{type: object, properties: {x: schema}}`, with `definitions`. */
function params(x: unknown, definitions: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', properties: { x }, definitions }
}

/** A chain of `levels` definitions, each applying the next `width` times through `$ref`s (row 2 and 12). */
function chain(levels: number, link: (next: { $ref: string }) => unknown): Record<string, unknown> {
  const definitions: Record<string, unknown> = {}
  for (let i = 0; i < levels; i++) definitions[`d${i}`] = link({ $ref: `#/definitions/d${i + 1}` })
  definitions[`d${levels}`] = { type: 'string' }
  return params({ $ref: '#/definitions/d0' }, definitions)
}

function hazard(schema: unknown): SchemaHazard {
  const found = safeSchema(schema)
  if (!('keyword' in found)) throw new Error('accepted')
  return found
}

describe('safeSchema refuses what the validator cannot check in bounded work', () => {
  it('format "url", whose regular expression backtracks exponentially (row 2)', () => {
    expect(hazard(params({ type: 'string', format: 'url' }))).toMatchObject({
      keyword: 'format',
      at: '#/properties/x/format',
    })
    expect('keyword' in safeSchema(params({ type: 'string', format: 'uri' }))).toBe(false)
  })

  it('uniqueItems without a small maxItems (row 2)', () => {
    expect(hazard(params({ type: 'array', uniqueItems: true }))).toMatchObject({
      keyword: 'uniqueItems',
      at: '#/properties/x/uniqueItems',
    })
    expect(hazard(params({ type: 'array', uniqueItems: true, maxItems: 40_000 })).keyword).toBe('uniqueItems')
    expect('keyword' in safeSchema(params({ type: 'array', uniqueItems: true, maxItems: 50 }))).toBe(false)
  })

  it('an if/then/else chain of 24 $ref levels, 2^24 applications (row 2)', () => {
    const schema = chain(24, (next) => ({ if: next, then: next, else: next }))
    expect(JSON.stringify(schema).length).toBeLessThan(4000)
    const found = hazard(schema)
    expect(['if', 'then', 'else', '$ref']).toContain(found.keyword)
    expect(found.problem).toMatch(/weigh more than|deeper than/)
    // As wide but shallow enough: its weight refuses it.
    const wide = chain(10, (next) => ({ anyOf: [next, next, next, next] }))
    expect(hazard(wide)).toMatchObject({ keyword: 'anyOf', problem: expect.stringMatching(/weigh more than/) })
  })

  it('an 18-level anyOf chain and a self-$ref (row 12)', () => {
    expect(hazard(chain(18, (next) => ({ anyOf: [next, next] }))).problem).toMatch(/weigh more than|deeper than/)
    expect(hazard({ $ref: '#' })).toMatchObject({ keyword: '$ref', problem: expect.stringMatching(/recursive/) })
    const mutual = params(
      { $ref: '#/definitions/a' },
      { a: { items: { $ref: '#/definitions/b' } }, b: { $ref: '#/definitions/a' } },
    )
    expect(hazard(mutual).keyword).toBe('$ref')
  })

  it('nesting past the depth bound, $refs followed, and $refs resolving to nothing', () => {
    const deep = chain(40, (next) => ({ allOf: [next] }))
    expect(hazard(deep).problem).toMatch(/deeper than/)
    expect(hazard(params({ $ref: '#/definitions/nope' }))).toMatchObject({ keyword: '$ref' })
    expect(hazard(params({ $recursiveRef: '#' })).keyword).toBe('$recursiveRef')
  })

  it('keywords of a type the validator would throw on', () => {
    expect(hazard(params({ anyOf: 5 })).keyword).toBe('anyOf')
    expect(hazard(params({ enum: 'a' })).keyword).toBe('enum')
    expect(hazard(params({ type: 'string', pattern: '(' })).problem).toMatch(/not a valid regular expression/)
  })

  it('patterns and patternProperties that can backtrack super-linearly', () => {
    expect(hazard(params({ type: 'string', pattern: '^(a+)+$' })).keyword).toBe('pattern')
    expect(hazard(params({ type: 'object', patternProperties: { '\\d+x': {} } })).keyword).toBe('patternProperties')
  })

  it('accepts every parameters and returns schema of examples/', () => {
    const files: string[] = []
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) walk(path)
        else if (name.endsWith('.json')) files.push(path)
      }
    }
    walk('examples')
    const prompts = files.flatMap((file) => {
      const record = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
      const contributes = record.contributes as { prompts?: Record<string, unknown>[] } | undefined
      return contributes?.prompts ?? [record]
    })
    expect(prompts.length).toBeGreaterThan(3)
    for (const record of prompts) {
      expect(safeSchema(normalizeParameters(record.parameters as never))).not.toHaveProperty('keyword')
      if (record.returns !== undefined) expect(safeSchema(record.returns)).not.toHaveProperty('keyword')
    }
  })
})

describe('regexHazard', () => {
  it.each([
    '^[a-z0-9_-]{3,16}$',
    '^\\d+$',
    '[0-9]{3}-[0-9]{4}',
    '^(?:get|put)$',
    '^\\p{L}+$',
    '^[A-Za-z][A-Za-z0-9_-]*$',
  ])('accepts %s', (pattern) => expect(regexHazard(pattern)).toBeUndefined())

  it.each([
    ['^(a+)+$', /quantifies inside a group/],
    ['^(?:ab)+$', /quantifies a group/],
    ['\\d+x', /does not open with \^/],
    ['^\\d*\\d*x', /2 unbounded/],
    ['^(a|b)\\1$', /back-reference/],
    ['^(?=a)a$', /lookaround/],
    ['a|b', /alternation outside a group/],
    ['^a?a?a?a?a?a?a?a?a?a?a?$', /combined choices/],
  ])('refuses %s', (pattern, why) => expect(regexHazard(pattern)).toMatch(why))
})

describe('schemaValidator bounds the work of a validation', () => {
  it('checks uniqueItems only on arrays within maxItems: linear in a longer one', () => {
    const validator = schemaValidator(params({ type: 'array', uniqueItems: true, maxItems: 100 }))
    let reads = 0
    const items = Array.from({ length: 3000 }, (_, i) => [i])
    const counted = new Proxy(items, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++
        return Reflect.get(target, key, receiver) as unknown
      },
    })
    const result = validator.validate({ x: counted })
    expect(result.valid).toBe(false)
    expect(result.errors.map((e) => e.keyword)).toContain('maxItems')
    // Without the guard, every pair: 9 million reads.
    expect(reads).toBeLessThan(10 * items.length)
    expect(validator.validate({ x: [[1], [1]] }).errors.map((e) => e.keyword)).toContain('uniqueItems')
  })

  it('refuses a value whose check would pass MAX_VALIDATION_WORK, before checking it', () => {
    const wide = params({
      type: 'array',
      items: { anyOf: Array.from({ length: 100 }, (_, i) => ({ required: [`k${i}`] })) },
    })
    const safe = safeSchema(wide)
    if ('keyword' in safe) throw new Error('refused')
    const value = { x: Array.from({ length: 40_000 }, () => ({})) }
    expect(workOf(safe.cost, value)).toBeGreaterThan(MAX_VALIDATION_WORK)
    const validator = schemaValidator(wide)
    expect(() => validator.validate(value)).toThrow(ServiceError)
    expect(() => validator.validate(value)).toThrow(/LIMIT|units of work/)
    expect(validator.validate({ x: [{ k3: 1 }] }).valid).toBe(true)
  })

  it('charges an ordinary 1 MiB argument against a small schema well under the bound', () => {
    const schema = normalizeParameters({
      xs: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } } } },
    })
    const safe = safeSchema(schema)
    if ('keyword' in safe) throw new Error('refused')
    const xs = Array.from({ length: 45_000 }, (_, i) => ({ a: `x${i}`, b: i }))
    expect(JSON.stringify(xs).length).toBeGreaterThan(1_000_000)
    expect(workOf(safe.cost, { xs })).toBeLessThan(MAX_VALIDATION_WORK)
    expect(schemaValidator(schema).validate({ xs }).valid).toBe(true)
  })

  it('refuses an unsafe schema with 400 naming the keyword', () => {
    expect(() => schemaValidator(params({ type: 'string', format: 'url' }))).toThrow(
      /format at #\/properties\/x\/format/,
    )
  })
})
