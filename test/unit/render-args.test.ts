// A prompt's args completed: defaults, then each omitted optional parameter's empty value, in every shape of `parameters`.
import { describe, expect, it } from 'vitest'
import { normalizeParameters } from '../../lib/catalog'
import type { ParametersInput } from '../../lib/catalog'
import { argsChecker } from '../../lib/render/args'

const complete = (parameters: ParametersInput, given: Record<string, unknown> = {}) =>
  argsChecker(normalizeParameters(parameters))(given)

describe("an omitted optional parameter without a default is its type's empty value", () => {
  it('in a JSON Schema object, unions and no type included', () => {
    const schema = {
      type: 'object',
      properties: {
        s: { type: 'string' },
        i: { type: 'integer' },
        n: { type: 'number' },
        b: { type: 'boolean' },
        a: { type: 'array' },
        o: { type: 'object' },
        nullable: { type: ['null', 'array'] },
        nil: { type: 'null' },
        untyped: {},
        anything: true,
        given: { type: 'string' },
        defaulted: { type: 'integer', default: 3 },
      },
    }
    expect(complete(schema, { given: 'x' })).toEqual({
      s: '',
      i: 0,
      n: 0,
      b: false,
      a: [],
      o: {},
      nullable: [],
      nil: null,
      untyped: '',
      anything: '',
      given: 'x',
      defaulted: 3,
    })
  })

  it("in the list form, by the list's type names, and in a map of schemas", () => {
    const list = [
      { name: 'text', type: 'str' },
      { name: 'count', type: 'INT' },
      { name: 'flag', type: 'bool' },
      { name: 'items', type: 'list' },
      { name: 'opts', type: 'dict' },
      { name: 'free', type: 'whatever' },
      { name: 'lang', type: 'string', default: 'go' },
    ]
    expect(complete(list)).toEqual({ text: '', count: 0, flag: false, items: [], opts: {}, free: '', lang: 'go' })
    expect(complete({ repo: { type: 'string' }, depth: { type: 'integer' } })).toEqual({ repo: '', depth: 0 })
  })

  it('is a fresh value for each render: one render adding to it changes no other', () => {
    const check = argsChecker(normalizeParameters({ a: { type: 'array' }, o: { type: 'object' } }))
    const first = check({})
    ;(first.a as unknown[]).push(1)
    ;(first.o as Record<string, unknown>).k = 1
    expect(check({})).toEqual({ a: [], o: {} })
  })

  it('leaves a required parameter required: only optional ones are completed', () => {
    expect(() => complete([{ name: 'code', type: 'string', required: true }])).toThrow(/invalid args: code is required/)
  })
})
