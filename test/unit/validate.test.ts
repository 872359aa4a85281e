import { describe, expect, it } from 'vitest'
import { EXTENSION_SCHEMA, PROMPT_SCHEMA, TOOL_SCHEMA } from '../../lib/catalog/schemas.generated'
import { explainInvalid, jsonPathOf } from '../../lib/catalog/validate'
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
    const schemas = { extensions: EXTENSION_SCHEMA, templates: PROMPT_SCHEMA, tools: TOOL_SCHEMA }
    for (const [key, value] of EMBEDDED_RECORDS) {
      const kind = key.split(':')[1] as keyof typeof schemas | 'environs'
      if (kind === 'environs') continue
      expect(explainInvalid(schemas[kind], value), key).toBeUndefined()
    }
  })

  it('names missing fields and the section a tool type needs', () => {
    expect(explainInvalid(TOOL_SCHEMA, { ...tool, restful: undefined })).toBe("$ must have required property 'restful'")
    expect(explainInvalid(TOOL_SCHEMA, { name: 't' })).toBe(
      "$ must have required property 'module'; $ must have required property 'type'; " +
        "$ must have required property 'description'; $ must have required property 'parameters'",
    )
  })

  it('lists the allowed values of an enum', () => {
    expect(explainInvalid(TOOL_SCHEMA, { ...tool, restful: { url: '/x', method: 'PATCH' } })).toBe(
      '$.restful.method must be one of "GET", "POST", "PUT", "DELETE"',
    )
  })

  it('words the prompt-or-messages rule once, at the prompt it concerns', () => {
    expect(explainInvalid(EXTENSION_SCHEMA, extension([{ name: 'p' }]))).toBe(
      "$.contributes.prompts[0] must have exactly one of 'prompt' or 'messages'",
    )
    expect(explainInvalid(EXTENSION_SCHEMA, extension([{ name: 'p', prompt: 'x', messages: [] }]))).toContain(
      "$.contributes.prompts[0] must have exactly one of 'prompt' or 'messages'",
    )
    expect(explainInvalid(EXTENSION_SCHEMA, extension([{ prompt: 'x' }]))).toBe(
      "$.contributes.prompts[0] must have required property 'name'",
    )
  })

  it('says what a prompt that is not an object lacks, then that it is not one', () => {
    expect(explainInvalid(PROMPT_SCHEMA, 'x')).toBe(
      "$ must have exactly one of 'prompt' or 'messages'; $ must be object",
    )
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 1, messages: 1 })).toBe(
      "$ must have exactly one of 'prompt' or 'messages'; $.prompt must be string; $.messages must be array",
    )
  })

  it('words lengths, counts and duplicates, the duplicates after the items', () => {
    expect(explainInvalid(PROMPT_SCHEMA, { messages: [] })).toBe('$.messages must NOT have fewer than 1 items')
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 'x', tools: ['x'.repeat(65), 'x'.repeat(65)] })).toBe(
      '$.tools[0] must NOT have more than 64 characters; $.tools[1] must NOT have more than 64 characters; ' +
        '$.tools must NOT have duplicate items (items ## 1 and 0 are identical)',
    )
    // Counted in code points, as JSON Schema counts.
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 'x', tools: ['😀'.repeat(64)] })).toBeUndefined()
    expect(explainInvalid(EXTENSION_SCHEMA, { ...extension(), version: '' })).toBe(
      '$.version must NOT have fewer than 1 characters',
    )
  })

  it('names the duplicates the first scan from the end finds, among strings only', () => {
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 'x', tools: ['a', 'b', 'a', 'b'] })).toBe(
      '$.tools must NOT have duplicate items (items ## 3 and 1 are identical)',
    )
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 'x', tools: ['a', 1, 1] })).toBe(
      '$.tools[1] must be string; $.tools[2] must be string',
    )
  })

  it('words the parameters shapes: which one a value almost is, or none', () => {
    const parameters = (value: unknown) => explainInvalid(PROMPT_SCHEMA, { prompt: 'x', parameters: value })
    expect(parameters({ a: 'string' })).toBe(
      "$.parameters must be array; $.parameters must have at least one of 'type' or '$schema' or 'properties'; " +
        '$.parameters.a must be object,boolean',
    )
    expect(parameters({ type: 'array' })).toBe(
      '$.parameters must be array; $.parameters.type must be "object"; $.parameters.type must be object,boolean; ' +
        '$.parameters must match at least one of the allowed shapes',
    )
    expect(parameters({ 'we ird': 1, 'x/y': 1, '~': 1, '#h': 1, '%25': 1 })).toBe(
      "$.parameters must be array; $.parameters must have at least one of 'type' or '$schema' or 'properties'; " +
        '$.parameters["we ird"] must be object,boolean; $.parameters["x/y"] must be object,boolean; ' +
        '$.parameters["~"] must be object,boolean; $.parameters["#h"] must be object,boolean; ' +
        '$.parameters["%25"] must be object,boolean',
    )
  })

  it('checks a member name that is not well-formed Unicode, naming it with U+FFFD', () => {
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 'x', parameters: JSON.parse('{"\\ud800": 1}') })).toBe(
      "$.parameters must be array; $.parameters must have at least one of 'type' or '$schema' or 'properties'; " +
        '$.parameters["\ufffd"] must be object,boolean',
    )
  })

  it('asks a gRPC-Web tool for its descriptor', () => {
    const grpc = { url: 'u', service: 's', method: 'm', protocol: 'grpc-web' }
    expect(explainInvalid(TOOL_SCHEMA, { ...tool, type: 'grpc', grpc })).toBe(
      "$.grpc must have required property 'descriptor'",
    )
  })

  it('stops at the first problem when there are too many to gather', () => {
    const messages = Array.from({ length: 100_000 }, () => ({ role: 'user' }))
    expect(explainInvalid(PROMPT_SCHEMA, { messages })).toBe("$.messages[0] must have required property 'content'")
  })

  it('holds returns in the tags format to a list of tag names', () => {
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 'x', returns: { format: 'tags', tags: ['code'] } })).toBeUndefined()
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 'x', returns: { format: 'tags' } })).toBe(
      "$.returns must have required property 'tags'",
    )
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 'x', returns: { format: 'tags', tags: ['a b'] } })).toBe(
      '$.returns.tags[0] must match pattern "^[A-Za-z][A-Za-z0-9_-]*$"',
    )
    expect(explainInvalid(PROMPT_SCHEMA, { prompt: 'x', returns: { format: 'json', tags: 1 } })).toBeUndefined()
  })

  it('points into messages', () => {
    expect(explainInvalid(PROMPT_SCHEMA, { messages: [{ role: 'robot', content: 1 }] })).toBe(
      '$.messages[0].role must be one of "system", "user", "assistant"; $.messages[0].content must be string',
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
