// Issue 32: which stored prompt an OpenAI-shaped body names, in each client's spelling, first match wins.
import { describe, expect, it } from 'vitest'
import { ServiceError } from '../../lib/errors'
import { promptRefOf } from '../../lib/openai/prompt-ref'

describe('promptRefOf', () => {
  it("takes OpenAI's prompt member first, its version as a number, the model kept for the LLM", () => {
    const ref = promptRefOf({
      model: 'gpt-x',
      prompt: { id: 'a.b', version: '3', variables: { x: 1 } },
      prompt_id: 'c.d',
    })
    expect(ref).toEqual({ id: 'a.b', version: 3, variables: { x: 1 }, model: 'gpt-x' })
  })

  it("then LiteLLM's prompt_id, prompt_version and prompt_variables", () => {
    const ref = promptRefOf({ model: 'm', prompt_id: 'c.d', prompt_version: 2, prompt_variables: { y: 'z' } })
    expect(ref).toEqual({ id: 'c.d', version: 2, variables: { y: 'z' }, model: 'm' })
  })

  it('then the model prompt:<id>@<version>, the variables from metadata, no LLM model named', () => {
    expect(promptRefOf({ model: 'prompt:team.x@12', metadata: { name: 'Ada' } })).toEqual({
      id: 'team.x',
      version: 12,
      variables: { name: 'Ada' },
      model: undefined,
    })
    expect(promptRefOf({ model: 'prompt:team.x' })).toMatchObject({ id: 'team.x', version: undefined })
  })

  it('names none for a plain model', () => {
    expect(promptRefOf({ model: 'gpt-x' })).toBeUndefined()
  })

  it('refuses a version that is not a version number, naming where it was', () => {
    for (const [body, param] of [
      [{ prompt: { id: 'a.b', version: 'latest' } }, 'prompt.version'],
      [{ prompt_id: 'a.b', prompt_version: 0 }, 'prompt_version'],
      [{ model: 'prompt:a.b@x' }, 'model'],
    ] as const) {
      const error = (() => {
        try {
          promptRefOf(body)
        } catch (e) {
          return e
        }
      })()
      expect(error).toBeInstanceOf(ServiceError)
      expect(error).toMatchObject({ code: 'BAD_REQUEST', extra: { param } })
    }
  })

  it('refuses an id that breaks the prompt id rule before anything is read', () => {
    expect(() => promptRefOf({ model: 'prompt:' })).toThrow(ServiceError)
    expect(() => promptRefOf({ model: `prompt:${'a'.repeat(300)}` })).toThrow(/longer than/)
  })
})
