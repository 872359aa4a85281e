// The LLM settings, as the chat route reads them from the Worker's configuration.
import { describe, expect, it } from 'vitest'
import { ServiceError } from '../../lib/errors'
import { settingsFrom } from '../../lib/settings'

const llmOptionsFrom = (env: Record<string, string>) => settingsFrom(env).llm

function problem(env: Record<string, string>): unknown {
  try {
    llmOptionsFrom(env)
  } catch (e) {
    return e instanceof ServiceError ? { code: e.code, message: e.message, extra: e.extra } : e
  }
  return undefined
}

describe('llmOptionsFrom', () => {
  it("defaults to the spec's retry policy (100 ms, then 300 ms), 30 s and 4 MiB", () => {
    expect(llmOptionsFrom({})).toEqual({ timeoutMs: 30_000, maxBytes: 4 * 1024 * 1024, retryDelaysMs: [100, 300] })
  })

  it('takes each setting when set', () => {
    const env = { LLM_TIMEOUT_MS: '200', LLM_MAX_BYTES: '1000', LLM_RETRY_DELAYS_MS: '0, 50,250' }
    expect(llmOptionsFrom(env)).toEqual({ timeoutMs: 200, maxBytes: 1000, retryDelaysMs: [0, 50, 250] })
  })

  it('refuses a malformed setting as MISCONFIGURED naming it', () => {
    const setting = { setting: 'LLM_RETRY_DELAYS_MS' }
    const expected = (got: string) => ({
      code: 'MISCONFIGURED',
      message: `LLM_RETRY_DELAYS_MS must be 1 to 5 comma-separated integers of at least 0, got '${got}'`,
      extra: setting,
    })
    for (const bad of ['100,soon', '100,,300', '-1', '1.5', '0,0,0,0,0,0']) {
      expect(problem({ LLM_RETRY_DELAYS_MS: bad }), bad).toEqual(expected(bad))
    }
    expect(problem({ LLM_TIMEOUT_MS: '0' })).toMatchObject({
      code: 'MISCONFIGURED',
      extra: { setting: 'LLM_TIMEOUT_MS' },
    })
  })
})
