// With no Redis configured the Worker serves examples/ from its embedded store.
import { describe, expect, it, vi } from 'vitest'
import evaluator from '../../examples/extensions/evaluator.json'
import { fetchWorker, get } from '../support/harness'

describe('the embedded store', () => {
  it('serves the example catalogue with no environment at all, and says so once in the log', async () => {
    const logged = vi.spyOn(console, 'log')
    const extensions = await get({}, '/api/extensions')
    const tools = await get({}, '/api/tools')
    expect(extensions.status).toBe(200)
    expect(extensions.body.data).toEqual([
      expect.objectContaining({ id: 'evaluator', prompts: ['evaluator.evaluate_quality', 'evaluator.review_symbol'] }),
    ])
    expect((tools.body.data as { id: string }[]).map((t) => t.id)).toEqual([
      'codebase_lookup_ref',
      'greeter_greet',
      'tickets_lookup',
      'translate_zh_en',
    ])
    const announcements = logged.mock.calls.filter(([line]) => String(line).includes('embedded'))
    expect(announcements).toHaveLength(1)
    logged.mockRestore()
  })

  it('answers every kind of record', async () => {
    expect((await get({}, '/api/extensions/evaluator')).body.data).toEqual(evaluator)
    expect((await get({}, '/api/prompts')).body.data).toHaveLength(4)
    expect((await get({}, '/api/prompts/evaluator.quick_review')).body.data).toMatchObject({
      origin: 'direct',
      kind: 'prompt',
      parameters: { type: 'object', required: ['code'] },
    })
    expect((await get({}, '/api/environs/vscode.programming_language')).body.data).toBe('go')
    // The README's rule: a tool's key is shenma:tools:{module}:{name}, its id {module}_{name}.
    expect((await get({}, '/api/tools/translate_zh_en')).body.data).toMatchObject({
      module: 'translate',
      name: 'zh_en',
    })
    expect((await get({}, '/health')).body.data).toEqual({
      service: 'ai-prompt-shell',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      store: 'embedded',
      llm: false,
    })
  })

  it('answers a write 403 WRITES_DISABLED saying writes need Redis, with or without ADMIN_TOKEN, and writes nothing', async () => {
    const put = (env: Record<string, string>, headers: Record<string, string> = {}) =>
      fetchWorker(env, '/api/prompts/tour.hello', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ prompt: 'Hello' }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> }))
    const answers = [
      await put({}),
      await put({ ADMIN_TOKEN: 'dev-admin' }),
      await put({ ADMIN_TOKEN: 'dev-admin' }, { authorization: 'Bearer dev-admin' }),
    ]
    for (const { status, body } of answers) {
      expect({ status, code: body.code }).toEqual({ status: 403, code: 'WRITES_DISABLED' })
      expect(body.message).toMatch(/^the embedded store is read-only: writes need Redis\. Locally, `npm run dev:redis`/)
      expect(body.message).toContain('UPSTASH_REDIS_REST_URL')
    }
    expect((await get({}, '/api/prompts/tour.hello')).status).toBe(404)
  })

  it('sends GET / to the /docs page', async () => {
    const res = await fetchWorker({}, '/')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/docs')
    expect((await fetchWorker({}, '/docs')).headers.get('content-type')).toMatch(/^text\/html/)
  })
})

describe("the example catalogue's prompt tests", () => {
  it('pass with no tool server and no model: the tools they call have their answers fixed, answer assertions skip', async () => {
    const { status, body } = await fetchWorker({}, '/api/test', { method: 'POST' }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as { data: { failed: number; errors: number; skipped: number; cases: unknown[] } },
    }))
    expect(status).toBe(200)
    expect(body.data).toMatchObject({ passed: 8, failed: 0, skipped: 1, errors: 0 })
    expect(body.data.cases).toHaveLength(9)
  })
})
