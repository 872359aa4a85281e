import { describe, expect, it } from 'vitest'
import { validateExtension, validatePrompt, validateTool } from '../../lib/catalog/validators.generated'
import { MAX_SCHEMA_PROBLEMS, explainInvalid, jsonPathOf } from '../../lib/catalog/validate'
import { EMBEDDED_RECORDS } from '../../lib/store/embedded-records.generated'

const tool = {
  name: 't',
  module: 'm',
  type: 'restful',
  restful: { url: '/x', method: 'GET' },
  description: 'd',
  parameters: {},
}

const extension = (prompts: unknown[] = []) => ({
  name: 'e',
  version: '1',
  extensionType: 'prompt',
  contributes: { prompts },
})

describe('explainInvalid', () => {
  it('accepts every example record against its schema', () => {
    const schemas = { extensions: validateExtension, templates: validatePrompt, tools: validateTool }
    for (const [key, value] of EMBEDDED_RECORDS) {
      const kind = key.split(':')[1] as keyof typeof schemas | 'environs'
      if (kind === 'environs') continue
      expect(explainInvalid(schemas[kind], value), key).toBeUndefined()
    }
  })

  it('names missing fields and the section a tool type needs', () => {
    expect(explainInvalid(validateTool, { ...tool, restful: undefined })).toBe(
      "$ must have required property 'restful'",
    )
    expect(explainInvalid(validateTool, { name: 't' })).toBe(
      "$ must have required property 'module'; $ must have required property 'type'; " +
        "$ must have required property 'description'; $ must have required property 'parameters'",
    )
  })

  it("lists the allowed values of an enum after Ajv's words", () => {
    expect(explainInvalid(validateTool, { ...tool, restful: { url: '/x', method: 'PATCH' } })).toBe(
      '$.restful.method must be equal to one of the allowed values: "GET", "POST", "PUT", "DELETE"',
    )
  })

  it('words the prompt-or-messages rule at the prompt it concerns, after what each branch lacks', () => {
    expect(explainInvalid(validateExtension, extension([{ name: 'p' }]))).toBe(
      "$.contributes.prompts[0] must have required property 'prompt'; " +
        "$.contributes.prompts[0] must have required property 'messages'; " +
        '$.contributes.prompts[0] must match exactly one schema in oneOf',
    )
    expect(explainInvalid(validateExtension, extension([{ name: 'p', prompt: 'x', messages: [] }]))).toBe(
      '$.contributes.prompts[0] must match exactly one schema in oneOf; ' +
        '$.contributes.prompts[0].messages must NOT have fewer than 1 items',
    )
    expect(explainInvalid(validateExtension, extension([{ prompt: 'x' }]))).toBe(
      "$.contributes.prompts[0] must have required property 'name'",
    )
  })

  it('says that a prompt that is not an object is not one', () => {
    expect(explainInvalid(validatePrompt, 'x')).toBe('$ must match exactly one schema in oneOf; $ must be object')
    expect(explainInvalid(validatePrompt, { prompt: 1, messages: 1 })).toBe(
      '$ must match exactly one schema in oneOf; $.prompt must be string; $.messages must be array',
    )
  })

  it('words lengths, counts and duplicates, the duplicates after the items', () => {
    expect(explainInvalid(validatePrompt, { messages: [] })).toBe('$.messages must NOT have fewer than 1 items')
    expect(explainInvalid(validatePrompt, { prompt: 'x', tools: ['x'.repeat(65), 'x'.repeat(65)] })).toBe(
      '$.tools[0] must NOT have more than 64 characters; $.tools[1] must NOT have more than 64 characters; ' +
        '$.tools must NOT have duplicate items (items ## 1 and 0 are identical)',
    )
    // Counted in code points, as JSON Schema counts.
    expect(explainInvalid(validatePrompt, { prompt: 'x', tools: ['😀'.repeat(64)] })).toBeUndefined()
    expect(explainInvalid(validateExtension, { ...extension(), version: '' })).toBe(
      '$.version must NOT have fewer than 1 characters',
    )
  })

  it('names the duplicates the first scan from the end finds, among strings only', () => {
    expect(explainInvalid(validatePrompt, { prompt: 'x', tools: ['a', 'b', 'a', 'b'] })).toBe(
      '$.tools must NOT have duplicate items (items ## 3 and 1 are identical)',
    )
    expect(explainInvalid(validatePrompt, { prompt: 'x', tools: ['a', 1, 1] })).toBe(
      '$.tools[1] must be string; $.tools[2] must be string',
    )
  })

  it('words the parameters shapes: what each shape lacks, then that none matched', () => {
    const parameters = (value: unknown) => explainInvalid(validatePrompt, { prompt: 'x', parameters: value })
    const noObjectSchema =
      "$.parameters must have required property 'type'; $.parameters must have required property '$schema'; " +
      "$.parameters must have required property 'properties'; $.parameters must match a schema in anyOf"
    expect(parameters({ a: 'string' })).toBe(
      `$.parameters must be array; ${noObjectSchema}; $.parameters.a must be object,boolean`,
    )
    expect(parameters({ type: 'array' })).toBe(
      '$.parameters must be array; $.parameters.type must be equal to constant "object"; ' +
        '$.parameters.type must be object,boolean; $.parameters must match a schema in anyOf',
    )
    expect(parameters({ 'we ird': 1, 'x/y': 1, '~': 1, '#h': 1, '%25': 1 })).toBe(
      `$.parameters must be array; ${noObjectSchema}; ` +
        '$.parameters["we ird"] must be object,boolean; $.parameters["x/y"] must be object,boolean; ' +
        '$.parameters["~"] must be object,boolean; $.parameters["#h"] must be object,boolean; ' +
        '$.parameters["%25"] must be object,boolean',
    )
  })

  it('checks a member name that is not well-formed Unicode, naming it with its escape', () => {
    expect(explainInvalid(validatePrompt, { prompt: 'x', parameters: JSON.parse('{"\\ud800": 1}') })).toBe(
      "$.parameters must be array; $.parameters must have required property 'type'; " +
        "$.parameters must have required property '$schema'; $.parameters must have required property 'properties'; " +
        '$.parameters must match a schema in anyOf; $.parameters["\\ud800"] must be object,boolean',
    )
  })

  it('asks a gRPC-Web tool for its descriptor', () => {
    const grpc = { url: 'u', service: 's', method: 'm', protocol: 'grpc-web' }
    expect(explainInvalid(validateTool, { ...tool, type: 'grpc', grpc })).toBe(
      "$.grpc must have required property 'descriptor'",
    )
  })

  it('lists the first MAX_SCHEMA_PROBLEMS problems and counts the others', () => {
    const messages = Array.from({ length: 100_000 }, () => ({ role: 'user' }))
    const listed = Array.from(
      { length: MAX_SCHEMA_PROBLEMS },
      (_, i) => `$.messages[${i}] must have required property 'content'`,
    )
    expect(explainInvalid(validatePrompt, { messages })).toBe(
      [...listed, `$ has ${100_000 - MAX_SCHEMA_PROBLEMS} more errors not listed`].join('; '),
    )
  })

  it('holds returns in the tags format to a list of tag names', () => {
    expect(explainInvalid(validatePrompt, { prompt: 'x', returns: { format: 'tags', tags: ['code'] } })).toBeUndefined()
    expect(explainInvalid(validatePrompt, { prompt: 'x', returns: { format: 'tags' } })).toBe(
      "$.returns must have required property 'tags'",
    )
    expect(explainInvalid(validatePrompt, { prompt: 'x', returns: { format: 'tags', tags: ['a b'] } })).toBe(
      '$.returns.tags[0] must match pattern "^[A-Za-z][A-Za-z0-9_-]*$"',
    )
    expect(explainInvalid(validatePrompt, { prompt: 'x', returns: { format: 'json', tags: 1 } })).toBeUndefined()
  })

  it('points into messages', () => {
    expect(explainInvalid(validatePrompt, { messages: [{ role: 'robot', content: 1 }] })).toBe(
      '$.messages[0].role must be equal to one of the allowed values: "system", "user", "assistant"; ' +
        '$.messages[0].content must be string',
    )
  })
})

describe('jsonPathOf', () => {
  it('writes member names and indexes as JSON paths', () => {
    expect(jsonPathOf([])).toBe('$')
    expect(jsonPathOf(['a', '0', 'b'])).toBe('$.a[0].b')
    expect(jsonPathOf(['we ird', 'x/y', '~'])).toBe('$["we ird"]["x/y"]["~"]')
  })
})
