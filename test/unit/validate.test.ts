import { describe, expect, it } from 'vitest'
import { explainInvalid, jsonPath } from '../../lib/catalog/validate'
import { validateExtension, validatePrompt, validateTool } from '../../lib/catalog/validators.generated'
import { EMBEDDED_RECORDS } from '../../lib/store/embedded-records.generated'

const tool = {
  name: 't',
  module: 'm',
  type: 'restful',
  restful: { url: '/x', method: 'GET' },
  description: 'd',
  parameters: {},
}

describe('explainInvalid', () => {
  it('accepts every example record against its schema', () => {
    const validators = { extensions: validateExtension, templates: validatePrompt, tools: validateTool }
    for (const [key, value] of EMBEDDED_RECORDS) {
      const kind = key.split(':')[1] as keyof typeof validators | 'environs'
      if (kind === 'environs') continue
      expect(explainInvalid(validators[kind], value), key).toBeUndefined()
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

  it('lists the allowed values of an enum', () => {
    expect(explainInvalid(validateTool, { ...tool, restful: { url: '/x', method: 'PATCH' } })).toBe(
      '$.restful.method must be one of "GET", "POST", "PUT", "DELETE"',
    )
  })

  it('words the prompt-or-messages rule once, at the prompt it concerns', () => {
    const extension = (prompts: unknown[]) => ({
      name: 'e',
      version: '1',
      extensionType: 'prompt',
      contributes: { prompts },
    })
    expect(explainInvalid(validateExtension, extension([{ name: 'p' }]))).toBe(
      "$.contributes.prompts[0] must have exactly one of 'prompt' or 'messages'",
    )
    expect(explainInvalid(validateExtension, extension([{ name: 'p', prompt: 'x', messages: [] }]))).toContain(
      "$.contributes.prompts[0] must have exactly one of 'prompt' or 'messages'",
    )
    expect(explainInvalid(validateExtension, extension([{ prompt: 'x' }]))).toBe(
      "$.contributes.prompts[0] must have required property 'name'",
    )
  })

  it('points into messages', () => {
    expect(explainInvalid(validatePrompt, { messages: [{ role: 'robot', content: 1 }] })).toBe(
      '$.messages[0].role must be one of "system", "user", "assistant"; $.messages[0].content must be string',
    )
  })
})

describe('jsonPath', () => {
  it('writes JSON pointers as JSON paths', () => {
    expect(jsonPath('')).toBe('$')
    expect(jsonPath('/a/0/b')).toBe('$.a[0].b')
    expect(jsonPath('/we ird/x~1y/~0')).toBe('$["we ird"]["x/y"]["~"]')
  })
})
