// Writes through the Worker, the versions they keep, and labels, against the
// real Redis behind the Upstash bridge: every check reads Redis itself too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { ADMIN, call, callWithToken, fetchWorker, get, llmServer, logged, writableRedis } from '../support/harness'
import type { Answer, TestRedis } from '../support/harness'

let db: TestRedis
let env: Env

beforeAll(async () => ({ db, env } = await writableRedis()))
afterAll(() => db.release())

/** A write with the admin token (or `token`), its body sent as JSON. */
const send = (method: string, path: string, body?: unknown, token = ADMIN, over: Env = {}): Promise<Answer> =>
  callWithToken({ ...env, ...over }, token, method, path, body)

const put = (path: string, body: unknown, over: Env = {}) => send('PUT', path, body, ADMIN, over)
const render = (path: string, args: Record<string, unknown> = {}, over: Env = {}) =>
  call({ ...env, ...over }, 'POST', path, { args })

/** A REST tool record; its URL is never called here. */
function restTool(module: string, name: string) {
  return {
    name,
    module,
    type: 'restful',
    description: `${module} ${name}`,
    parameters: [{ name: 'q', type: 'string' }],
    restful: { url: `http://127.0.0.1:1/${name}` },
  }
}

/** Every key of the test's database matching `pattern`, sorted. */
async function keys(pattern = '*'): Promise<string[]> {
  return (await db.redis.keys(pattern)).sort()
}

describe('the write API', () => {
  it('answers 403 WRITES_DISABLED without ADMIN_TOKEN configured, 401 with a wrong or no token, and writes nothing', async () => {
    const body = { prompt: 'hi' }
    const disabled = await call(db.env, 'PUT', '/api/prompts/auth.p', body)
    expect(disabled.status).toBe(403)
    expect(disabled.body).toMatchObject({ code: 'WRITES_DISABLED', message: expect.stringMatching(/ADMIN_TOKEN/) })
    const wrong = await send('PUT', '/api/prompts/auth.p', body, 'not-it')
    expect(wrong.status).toBe(401)
    expect(wrong.body.code).toBe('UNAUTHORIZED')
    const none = await call(env, 'DELETE', '/api/prompts/auth.p')
    expect(none.status).toBe(401)
    // API_TOKEN reads; it does not write. ADMIN_TOKEN does both.
    const both = { API_TOKEN: 'reader' }
    expect((await send('PUT', '/api/prompts/auth.p', body, 'reader', both)).status).toBe(401)
    expect(await keys('*auth*')).toEqual([])
    expect((await send('PUT', '/api/prompts/auth.p', body, ADMIN, both)).status).toBe(200)
    expect((await send('GET', '/api/prompts/auth.p', undefined, ADMIN, both)).status).toBe(200)
  })

  it('keeps every version: PUT three times, the versions list 3, 2, 1, and ?version=1 renders the first text', async () => {
    for (const [i, text] of ['first {{.args.x}}', 'second {{.args.x}}', 'third {{.args.x}}'].entries()) {
      const { status, body } = await put(`/api/prompts/v.three?message=edit%20${i + 1}`, { prompt: text })
      expect(status).toBe(200)
      expect(body).toEqual({
        status: 'success',
        data: { id: 'v.three', key: 'shenma:templates:v:three', version: i + 1, label: null },
      })
    }
    const { body } = await get(env, '/api/prompts/v.three/versions')
    const versions = body.data as { version: number; message: string; created_at: string; deleted: boolean }[]
    expect(versions.map((v) => [v.version, v.message, v.deleted])).toEqual([
      [3, 'edit 3', false],
      [2, 'edit 2', false],
      [1, 'edit 1', false],
    ])
    expect(Date.parse(versions[0]?.created_at ?? '')).not.toBeNaN()

    const first = await render('/api/prompts/v.three/render?version=1', { x: 1 })
    expect(first.body.rendered_prompt).toBe('first 1')
    expect(first.headers.get('x-prompt-version')).toBe('1')
    const now = await render('/api/prompts/v.three/render', { x: 1 })
    expect(now.body.rendered_prompt).toBe('third 1')
    expect(now.headers.get('x-prompt-version')).toBe('3')
    expect(now.headers.get('x-prompt-label')).toBeNull()

    const two = await get(env, '/api/prompts/v.three?version=2')
    expect((two.body.data as { prompt: string }).prompt).toBe('second {{.args.x}}')
    expect(two.headers.get('x-prompt-version')).toBe('2')
    const stored = await get(env, '/api/prompts/v.three/versions/2')
    expect(stored.body.data).toMatchObject({ version: 2, message: 'edit 2', value: { prompt: 'second {{.args.x}}' } })
  })

  it('answers 404 VERSION_NOT_FOUND for a version not kept, on GET, render and chat', async () => {
    await put('/api/prompts/v.one', { prompt: 'only' })
    for (const [method, path] of [
      ['GET', '/api/prompts/v.one?version=2'],
      ['POST', '/api/prompts/v.one/render?version=2'],
      ['POST', '/api/prompts/v.one/chat?version=9'],
      ['GET', '/api/prompts/v.one/versions/2'],
    ] as const) {
      const { status, body } = await call(env, method, path, method === 'POST' ? {} : undefined)
      expect(status, path).toBe(404)
      expect(body.code, path).toBe('VERSION_NOT_FOUND')
    }
    const bad = await call(env, 'POST', '/api/prompts/v.one/render?version=0', {})
    expect(bad.status).toBe(400)
  })

  it('checks a body as the catalogue reads records, and writes nothing when it fails', async () => {
    const syntax = await put('/api/prompts/bad.syntax', { prompt: 'Hello {{.args.name' })
    expect(syntax.status).toBe(400)
    expect(syntax.body.code).toBe('TEMPLATE_SYNTAX')
    expect(syntax.body.message).toMatch(
      /^the body is not a valid prompt record: \$\.prompt:1:\d+: template: bad\.syntax:1/,
    )
    const schema = await put('/api/tools/bad_tool', { name: 'tool', module: 'bad', type: 'restful', parameters: [] })
    expect(schema.status).toBe(400)
    expect(schema.body.code).toBe('BAD_REQUEST')
    expect(schema.body.message).toMatch(/\$: must have required property 'description'/)
    const named = await put('/api/tools/other_name', restTool('bad', 'tool'))
    expect(named.status).toBe(400)
    expect(named.body.message).toBe("the tool's {module}_{name} is 'bad_tool', not the tool_id 'other_name'")
    const extension = await put('/api/extensions/bad', { name: 'bad', version: '1', extensionType: 'prompt' })
    expect(extension.status).toBe(400)
    expect(extension.body.message).toMatch(/contributes/)
    const empty = await fetchWorker(env, '/api/environs/bad.empty', {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    })
    expect(empty.status).toBe(400)
    const notJson = await fetchWorker(env, '/api/environs/bad.json', {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: '{"a":',
    })
    expect(notJson.status).toBe(400)
    expect(await keys('*bad*')).toEqual([])
  })

  it('writes and deletes each kind, with a version for the deletion', async () => {
    const tool = restTool('kinds', 'lookup')
    const extension = {
      name: 'kindsext',
      version: '1.0.0',
      extensionType: 'prompt',
      contributes: { prompts: [{ name: 'hello', prompt: 'hello {{.kinds.who}}' }] },
    }
    const writes: [string, unknown, string][] = [
      ['/api/extensions/kindsext', extension, 'shenma:extensions:kindsext'],
      ['/api/environs/kinds.who', 'world', 'shenma:environs:kinds:who'],
      ['/api/environs/kinds.list', [1, 2], 'shenma:environs:kinds:list'],
      ['/api/tools/kinds_lookup', tool, 'shenma:tools:kinds:lookup'],
    ]
    for (const [path, value, key] of writes) {
      const { status, body } = await put(path, value)
      expect(status, path).toBe(200)
      expect((body.data as { key: string }).key).toBe(key)
      expect(await db.redis.get(key)).toEqual(value)
      expect((await get(env, path)).body.data).toEqual(value)
    }
    const rendered = await render('/api/prompts/kindsext.hello/render')
    expect(rendered.body.rendered_prompt).toBe('hello world')
    // A prompt contributed by an extension has its extension's versions.
    expect(rendered.headers.get('x-prompt-version')).toBe('1')
    expect((await get(env, '/api/prompts/kindsext.hello/versions')).body.data).toMatchObject([{ version: 1 }])

    for (const [path, , key] of writes) {
      const { status, body } = await send('DELETE', `${path}?message=gone`)
      expect(status, path).toBe(200)
      expect((body.data as { version: number }).version).toBe(2)
      expect(await db.redis.get(key)).toBeNull()
      expect((await get(env, path)).status).toBe(404)
      const { body: listed } = await get(env, `${path}/versions`)
      expect(listed.data).toMatchObject([
        { version: 2, message: 'gone', deleted: true },
        { version: 1, deleted: false },
      ])
    }
    expect((await send('DELETE', '/api/environs/kinds.who')).status).toBe(404)
    // The version before a deletion is still there to roll back to.
    expect((await get(env, '/api/environs/kinds.list/versions/1')).body.data).toMatchObject({ value: [1, 2] })
  })

  it('numbers concurrent writes apart: each its own version, none lost from the history', async () => {
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => put('/api/environs/race.value', i)))
    const versions = answers.map((a) => (a.body.data as { version: number }).version)
    expect([...versions].sort()).toEqual([1, 2, 3, 4, 5])
    const { body } = await get(env, '/api/environs/race.value/versions')
    expect((body.data as { version: number }[]).map((v) => v.version)).toEqual([5, 4, 3, 2, 1])
    // Each version holds what its write sent, and the newest is what is stored.
    for (const [i, version] of versions.entries()) {
      expect((await get(env, `/api/environs/race.value/versions/${version}`)).body.data).toMatchObject({ value: i + 1 })
    }
    const newest = versions.indexOf(5) + 1
    expect(await db.redis.get('shenma:environs:race:value')).toBe(newest)
  })

  it('keeps only HISTORY_LIMIT versions, numbered on', async () => {
    const over = { HISTORY_LIMIT: '3' }
    for (let i = 1; i <= 5; i++)
      expect((await put('/api/environs/cap.value', i, over)).body.data).toMatchObject({ version: i })
    const { body } = await get({ ...env, ...over }, '/api/environs/cap.value/versions')
    expect((body.data as { version: number }[]).map((v) => v.version)).toEqual([5, 4, 3])
    expect((await get(env, '/api/environs/cap.value/versions/3')).body.data).toMatchObject({ value: 3 })
    expect((await get(env, '/api/environs/cap.value/versions/2')).status).toBe(404)
    expect(await db.redis.llen('shenma:history:values:environs:cap:value')).toBe(3)
  })

  it('serves a record written by other means unversioned, and records it as the version before the next write', async () => {
    await put('/api/prompts/direct.p', { prompt: 'service one' })
    await db.redis.set('shenma:templates:direct:p', { prompt: 'written directly' })
    const served = await render('/api/prompts/direct.p/render')
    expect(served.body.rendered_prompt).toBe('written directly')
    expect(served.headers.get('x-prompt-version')).toBe('unversioned')
    expect((await get(env, '/api/prompts/direct.p/versions')).body.data).toMatchObject([{ version: 1 }])

    expect((await put('/api/prompts/direct.p', { prompt: 'service two' })).body.data).toMatchObject({ version: 3 })
    const { body } = await get(env, '/api/prompts/direct.p/versions')
    expect(body.data).toMatchObject([
      { version: 3, message: null },
      { version: 2, message: 'found changed in Redis by other means' },
      { version: 1 },
    ])
    expect((await get(env, '/api/prompts/direct.p/versions/2')).body.data).toMatchObject({
      value: { prompt: 'written directly' },
    })
    expect((await render('/api/prompts/direct.p/render')).headers.get('x-prompt-version')).toBe('3')
  })

  it('writes nothing under ?skip_unchanged=true when the newest version stores the same text, and says unchanged', async () => {
    const body = { prompt: 'same text' }
    expect((await put('/api/prompts/skip.p', body)).body.data).toMatchObject({ version: 1 })
    const again = await put('/api/prompts/skip.p?skip_unchanged=true&message=again', body)
    expect(again.status).toBe(200)
    expect(again.body.data).toEqual({
      id: 'skip.p',
      key: 'shenma:templates:skip:p',
      version: 1,
      label: null,
      unchanged: true,
    })
    expect((await get(env, '/api/prompts/skip.p/versions')).body.data).toMatchObject([{ version: 1, message: null }])

    // Another text is written; so is the same text once written by other means, which then gets its version first.
    const changed = await put('/api/prompts/skip.p?skip_unchanged=true', { prompt: 'new text' })
    expect(changed.body.data).toEqual({ id: 'skip.p', key: 'shenma:templates:skip:p', version: 2, label: null })
    await db.redis.set('shenma:templates:skip:p', { prompt: 'direct' })
    const direct = await put('/api/prompts/skip.p?skip_unchanged=true', { prompt: 'direct' })
    expect(direct.body.data).toMatchObject({ version: 4 })
    expect(direct.body.data).not.toHaveProperty('unchanged')
    // Without the parameter, the same text is a new version, as it always was.
    expect((await put('/api/prompts/skip.p', { prompt: 'direct' })).body.data).toMatchObject({ version: 5 })
  })

  it('refreshes its own isolate at once: a render right after a write renders the new text', async () => {
    await put('/api/prompts/fresh.p', { prompt: 'before' })
    expect((await render('/api/prompts/fresh.p/render')).body.rendered_prompt).toBe('before')
    await put('/api/prompts/fresh.p', { prompt: 'after' })
    const after = await render('/api/prompts/fresh.p/render')
    expect(after.body.rendered_prompt).toBe('after')
    expect(after.headers.get('x-prompt-version')).toBe('2')
  })
})

describe('transactions', () => {
  it('leave nothing half-written when the second command of a write fails', async () => {
    await put('/api/prompts/tx.p', { prompt: 'kept' })
    const before = await keys()
    await db.failNext('EVAL')
    const failed = await put('/api/prompts/tx.p', { prompt: 'lost' })
    expect(failed.status).toBe(503)
    expect(failed.body.code).toBe('STORE_UNAVAILABLE')
    expect(await db.redis.get('shenma:templates:tx:p')).toEqual({ prompt: 'kept' })
    expect(await db.redis.get('shenma:history:seq:templates:tx:p')).toBe(1)
    expect(await db.redis.llen('shenma:history:log:templates:tx:p')).toBe(1)
    expect(await keys()).toEqual(before)
    const served = await render('/api/prompts/tx.p/render')
    expect(served.body.rendered_prompt).toBe('kept')
    expect(served.headers.get('x-prompt-version')).toBe('1')
  })

  it('refuse a write whose history holds something else (409 CONFLICT) before writing anything', async () => {
    await db.redis.set('shenma:history:log:templates:tx:garbled', 'not a list')
    const refused = await put('/api/prompts/tx.garbled', { prompt: 'x' })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('CONFLICT')
    expect(refused.body.message).toMatch(/shenma:history:log:templates:tx:garbled holds a Redis string/)
    expect(await db.redis.get('shenma:templates:tx:garbled')).toBeNull()
  })
})

describe('labels', () => {
  beforeAll(async () => {
    await put('/api/prompts/lab.greet', { prompt: 'base: {{.lab.who}} likes {{.lab.color}}' })
    await put('/api/environs/lab.who', 'Ada')
    await put('/api/environs/lab.color', 'red')
    await put('/api/environs/lab.gone', 'here')
  })

  it("render under ?label= with the label's prompt and the base's variables; without it, the base", async () => {
    const written = await put('/api/prompts/lab.greet?label=feat', {
      prompt: 'feat: {{.lab.who}} likes {{.lab.color}}',
    })
    expect(written.body.data).toEqual({
      id: 'lab.greet',
      key: 'shenma:labels:feat:templates:lab:greet',
      version: 1,
      label: 'feat',
    })
    const feat = await render('/api/prompts/lab.greet/render?label=feat')
    expect(feat.body.rendered_prompt).toBe('feat: Ada likes red')
    expect(feat.headers.get('x-prompt-label')).toBe('feat')
    expect(feat.headers.get('x-prompt-version')).toBe('1')
    const base = await render('/api/prompts/lab.greet/render')
    expect(base.body.rendered_prompt).toBe('base: Ada likes red')
    expect(base.headers.get('x-prompt-label')).toBeNull()

    // A variable the label changes is the label's; the others stay the base's.
    await put('/api/environs/lab.color?label=feat', 'blue')
    expect((await render('/api/prompts/lab.greet/render?label=feat')).body.rendered_prompt).toBe('feat: Ada likes blue')
    expect((await render('/api/prompts/lab.greet/render')).body.rendered_prompt).toBe('base: Ada likes red')
    // PROMPT_LABEL is the default label; an empty ?label= asks for the base.
    const deployed = { PROMPT_LABEL: 'feat' }
    expect((await render('/api/prompts/lab.greet/render', {}, deployed)).body.rendered_prompt).toBe(
      'feat: Ada likes blue',
    )
    expect((await render('/api/prompts/lab.greet/render?label=', {}, deployed)).body.rendered_prompt).toBe(
      'base: Ada likes red',
    )
  })

  it('show the label and the base in every list, less what the label deleted', async () => {
    await put('/api/prompts/lab.only?label=feat', { prompt: 'only in feat' })
    await put('/api/environs/lab.extra?label=feat', 1)
    await send('DELETE', '/api/environs/lab.gone?label=feat')
    const prompts = (await get(env, '/api/prompts?label=feat')).body.data as { id: string }[]
    expect(prompts.map((p) => p.id)).toEqual(expect.arrayContaining(['lab.greet', 'lab.only']))
    expect(((await get(env, '/api/prompts')).body.data as { id: string }[]).map((p) => p.id)).not.toContain('lab.only')
    const environs = (await get(env, '/api/environs?label=feat')).body.data as string[]
    expect(environs.filter((p) => p.startsWith('lab.'))).toEqual(['lab.color', 'lab.extra', 'lab.who'])
    expect((await get(env, '/api/environs/lab?label=feat')).body.data).toEqual({ color: 'blue', extra: 1, who: 'Ada' })
    // The tombstone hides the base record in the label only.
    expect((await get(env, '/api/environs/lab.gone?label=feat')).status).toBe(404)
    expect((await get(env, '/api/environs/lab.gone')).body.data).toBe('here')
    expect(await db.redis.get('shenma:environs:lab:gone')).toBe('here')
  })

  it('keep their own versions and tools', async () => {
    const tool = restTool('lab', 'echo')
    await put('/api/tools/lab_echo?label=feat', tool)
    expect(((await get(env, '/api/tools?label=feat')).body.data as { id: string }[]).map((t) => t.id)).toContain(
      'lab_echo',
    )
    expect((await get(env, '/api/tools/lab_echo')).status).toBe(404)
    const versions = await get(env, '/api/prompts/lab.greet/versions?label=feat')
    expect(versions.headers.get('x-prompt-label')).toBe('feat')
    expect((versions.body.data as unknown[]).length).toBe(1)
  })

  it('refuse a malformed label with 400, and a malformed PROMPT_LABEL with 503 MISCONFIGURED', async () => {
    const bad = await get(env, '/api/prompts?label=Not_A_Label')
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/^the label must be 1 to 63/)
    const misconfigured = await get({ ...env, PROMPT_LABEL: '-x' }, '/api/prompts')
    expect(misconfigured.status).toBe(503)
    expect(misconfigured.body).toMatchObject({ code: 'MISCONFIGURED', setting: 'PROMPT_LABEL' })
  })

  it("log the label and the version served in the request's line", async () => {
    const { lines } = await logged(() => render('/api/prompts/lab.greet/render?label=feat'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ label: 'feat', prompt_version: 1 })
  })

  it('carry the version headers on chat answers too', async () => {
    const llm = { LLM_BASE_URL: llmServer().url, LLM_API_KEY: 'k', LLM_DEFAULT_MODEL: 'ok' }
    const res = await fetchWorker({ ...env, ...llm }, '/api/prompts/lab.greet/chat?label=feat', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-prompt-version')).toBe('1')
    expect(res.headers.get('x-prompt-label')).toBe('feat')
    await res.body?.cancel()
  })

  it('promote onto another label: what the source deleted is hidden in the target, which then reads as the source did', async () => {
    await put('/api/environs/hop.kept', 'base')
    await put('/api/environs/hop.dropped', 'base')
    await put('/api/environs/hop.kept?label=one', 'from one')
    await send('DELETE', '/api/environs/hop.dropped?label=one')
    const { body } = await send('POST', '/api/labels/one/promote?to=two')
    // Each with the version it is on the target.
    expect(body.data).toEqual([
      {
        kind: 'environs',
        id: 'hop.dropped',
        key: 'shenma:labels:two:environs:hop:dropped',
        before: '"base"',
        after: '{"$shenma":"tombstone"}',
        version: 1,
      },
      {
        kind: 'environs',
        id: 'hop.kept',
        key: 'shenma:labels:two:environs:hop:kept',
        before: '"base"',
        after: '"from one"',
        version: 1,
      },
    ])
    expect((await get(env, '/api/environs/hop?label=two')).body.data).toEqual({ kept: 'from one' })
    expect((await get(env, '/api/environs/hop')).body.data).toEqual({ dropped: 'base', kept: 'base' })
    expect(await keys('shenma:labels:one:*')).toEqual([])
  })

  it('promote: --dry-run says what would change; then the base renders what the label rendered, and the label is gone', async () => {
    const labelled = (await render('/api/prompts/lab.greet/render?label=feat')).body.rendered_prompt
    const dry = await send('POST', '/api/labels/feat/promote?dry_run=true')
    expect(dry.status).toBe(200)
    const planned = dry.body.data as {
      kind: string
      id: string
      key: string
      before: string | null
      after: string | null
    }[]
    expect(planned.map((p) => `${p.kind} ${p.id}`).sort()).toEqual([
      'environs lab.color',
      'environs lab.extra',
      'environs lab.gone',
      'prompts lab.greet',
      'prompts lab.only',
      'tools lab_echo',
    ])
    expect(planned.find((p) => p.id === 'lab.gone')).toMatchObject({ before: '"here"', after: null })
    expect((await render('/api/prompts/lab.greet/render')).body.rendered_prompt).toBe('base: Ada likes red')

    const done = await send('POST', '/api/labels/feat/promote')
    // What the dry run planned, each with the version it wrote.
    const written = done.body.data as { version?: number }[]
    expect(written.map(({ version: _, ...p }) => p)).toEqual(dry.body.data)
    expect(written.every(({ version }) => Number.isSafeInteger(version))).toBe(true)
    expect((await render('/api/prompts/lab.greet/render')).body.rendered_prompt).toBe(labelled)
    expect((await get(env, '/api/environs/lab.gone')).status).toBe(404)
    expect(await keys('shenma:labels:feat:*')).toEqual([])
    const { body } = await get(env, '/api/prompts/lab.greet/versions')
    expect(body.data).toMatchObject([{ version: 2, message: 'promoted from label feat' }, { version: 1 }])
    // The label now reads as the base does.
    expect((await render('/api/prompts/lab.greet/render?label=feat')).headers.get('x-prompt-label')).toBeNull()
  })
})
