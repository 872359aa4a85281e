// What happens with records publishers got wrong, and with overrides.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import evaluator from '../../examples/extensions/evaluator.json'
import lookupRef from '../../examples/tools/codebase/lookup_ref.json'
import { freshRedis, get, logged } from '../support/harness'
import type { TestRedis } from '../support/harness'

let db: TestRedis
beforeEach(async () => {
  db = await freshRedis()
})
afterEach(() => db.release())

describe('a corrupt record', () => {
  beforeEach(async () => {
    await db.redis.mset({
      'shenma:extensions:evaluator': evaluator,
      'shenma:extensions:broken': '{"name": "broken", "version": ',
      'shenma:extensions:no_version': { name: 'no_version', extensionType: 'prompt', contributes: { prompts: [] } },
      'shenma:tools:codebase:lookup_ref': lookupRef,
      'shenma:tools:bad:get': { ...lookupRef, type: 'restful', restful: undefined },
    })
  })

  it('is skipped and reported beside the listing, which still answers the good records', async () => {
    const { status, body } = await get(db.env, '/api/extensions')
    expect(status).toBe(200)
    expect((body.data as { id: string }[]).map((e) => e.id)).toEqual(['evaluator'])
    expect(body.skipped).toEqual([
      { key: 'shenma:extensions:broken', reason: expect.stringMatching(/^is not valid JSON \(.+\)$/) },
      { key: 'shenma:extensions:no_version', reason: "fails its schema: $ must have required property 'version'" },
    ])
  })

  it('names the schema rule a tool breaks', async () => {
    const { body } = await get(db.env, '/api/tools')
    expect((body.data as { id: string }[]).map((t) => t.id)).toEqual(['codebase_lookup_ref'])
    expect(body.skipped).toEqual([
      { key: 'shenma:tools:bad:get', reason: "fails its schema: $ must have required property 'restful'" },
    ])
  })

  it('answers 404 with the reason when asked for by id', async () => {
    const ext = await get(db.env, '/api/extensions/broken')
    expect(ext.status).toBe(404)
    expect(ext.body.message).toMatch(/^extension 'broken' is stored at shenma:extensions:broken but is not valid JSON/)
    const tool = await get(db.env, '/api/tools/bad_get')
    expect(tool.status).toBe(404)
    expect(tool.body.message).toBe(
      "tool 'bad_get' is stored at shenma:tools:bad:get but fails its schema: $ must have required property 'restful'",
    )
  })

  it('in a prompt list names the prompt entry at fault', async () => {
    const bad = structuredClone(evaluator) as Record<string, unknown> & typeof evaluator
    ;(bad.contributes.prompts[0] as Record<string, unknown>).prompt = 'both kinds at once'
    await db.redis.set('shenma:extensions:evaluator', bad)
    const { body } = await get(db.env, '/api/prompts')
    expect(body.data).toEqual([])
    expect(body.skipped).toContainEqual({
      key: 'shenma:extensions:evaluator',
      reason: 'fails its schema: $.contributes.prompts[0] must match exactly one schema in oneOf',
    })
  })
})

describe('environ values', () => {
  it('reads bare text as a string, and reports text that opens like JSON but is not', async () => {
    await db.redis.mset({
      'shenma:environs:chat:title': 'Fix the login bug',
      'shenma:environs:chat:count': 3,
      'shenma:environs:chat:history': '[{"role": "user"',
    })
    const { body } = await get(db.env, '/api/environs/chat')
    expect(body.data).toEqual({ title: 'Fix the login bug', count: 3 })
    expect(body.skipped).toEqual([
      { key: 'shenma:environs:chat:history', reason: expect.stringMatching(/^is not valid JSON/) },
    ])
  })

  it('merges descendants into an object value and reports a descendant of a scalar', async () => {
    await db.redis.mset({
      'shenma:environs:model:default': { name: 'gpt', window: 8 },
      'shenma:environs:model:default:window': 128,
      'shenma:environs:model:name': 'deepseek',
      'shenma:environs:model:name:short': 'ds',
    })
    const { body } = await get(db.env, '/api/environs/model')
    expect(body.data).toEqual({ default: { name: 'gpt', window: 128 }, name: 'deepseek' })
    expect(body.skipped).toEqual([
      { key: 'shenma:environs:model:name:short', reason: "conflicts with the non-object value at 'name'" },
    ])
  })

  it('treats path segments such as __proto__ as plain names', async () => {
    await db.redis.mset({ 'shenma:environs:x:__proto__:polluted': true, 'shenma:environs:x:constructor': 'c' })
    const { body } = await get(db.env, '/api/environs/x')
    expect(body.data).toEqual(JSON.parse('{"__proto__": {"polluted": true}, "constructor": "c"}'))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('a prompt stored directly', () => {
  const direct = { prompt: 'Direct: {{.args.x}}', supports: ['completion'], parameters: { x: { type: 'string' } } }

  it('overrides the extension prompt of the same id, in the list and by id', async () => {
    await db.redis.mset({
      'shenma:extensions:evaluator': evaluator,
      'shenma:templates:evaluator:evaluate_quality': direct,
      'shenma:templates:team:standup': { messages: [{ role: 'user', content: 'Standup notes' }] },
    })
    const list = await get(db.env, '/api/prompts')
    // In the order of their keys: the extension's prompts, then the direct ones.
    expect(list.body.data).toEqual([
      expect.objectContaining({ id: 'evaluator.review_symbol', origin: 'extension' }),
      {
        id: 'evaluator.evaluate_quality',
        origin: 'direct',
        kind: 'prompt',
        description: null,
        supports: ['completion'],
      },
      { id: 'team.standup', origin: 'direct', kind: 'messages', description: null, supports: [] },
    ])
    const one = await get(db.env, '/api/prompts/evaluator.evaluate_quality')
    expect(one.body.data).toMatchObject({
      origin: 'direct',
      prompt: 'Direct: {{.args.x}}',
      parameters: { type: 'object', properties: { x: { type: 'string' } }, required: [] },
    })
  })

  it('overrides nothing when it is invalid: the extension prompt shows through', async () => {
    await db.redis.mset({
      'shenma:extensions:evaluator': evaluator,
      'shenma:templates:evaluator:evaluate_quality': { supports: ['chat'] },
    })
    const one = await get(db.env, '/api/prompts/evaluator.evaluate_quality')
    expect(one.status).toBe(200)
    expect(one.body.data).toMatchObject({ origin: 'extension', kind: 'messages' })
    const list = await get(db.env, '/api/prompts')
    expect(list.body.skipped).toEqual([
      {
        key: 'shenma:templates:evaluator:evaluate_quality',
        reason:
          "fails its schema: $ must have required property 'prompt'; $ must have required property 'messages'; " +
          '$ must match exactly one schema in oneOf',
      },
    ])
  })
})

describe('extensions of other types', () => {
  it('are left out of the lists and not served by id', async () => {
    await db.redis.set('shenma:extensions:linter', {
      name: 'linter',
      version: '1',
      extensionType: 'tool',
      contributes: {},
    })
    expect((await get(db.env, '/api/extensions')).body).toEqual({ status: 'success', data: [], next_cursor: null })
    const { status, body } = await get(db.env, '/api/extensions/linter')
    expect(status).toBe(404)
    expect(body.message).toBe("extension 'linter' is not a prompt extension (extensionType 'tool')")
  })
})

describe('tool names', () => {
  it('are given to the first key in sorted order when two keys map to one name', async () => {
    await db.redis.mset({ 'shenma:tools:a:b_c': lookupRef, 'shenma:tools:a_b:c': lookupRef })
    const { body } = await get(db.env, '/api/tools')
    expect((body.data as { id: string }[]).map((t) => t.id)).toEqual(['a_b_c'])
    expect(body.skipped).toEqual([
      { key: 'shenma:tools:a_b:c', reason: "its function name 'a_b_c' is already taken by shenma:tools:a:b_c" },
    ])
  })
})

describe('skips', () => {
  it("are logged as events of the request's line, with the key and the reason, and no part of the value", async () => {
    await db.redis.set('shenma:tools:leaky', '{"name": "x", "token": "sk-live-SECRET"')
    const { result, lines } = await logged(() => get(db.env, '/api/tools'))
    expect(lines).toHaveLength(1)
    expect(lines[0]?.events).toEqual([
      {
        level: 'warn',
        msg: 'record skipped',
        key: 'shenma:tools:leaky',
        reason: 'is not valid JSON (error at position 39)',
      },
    ])
    expect(JSON.stringify([result.body, lines])).not.toContain('SECRET')
  })

  it('cover keys with a dot inside a segment, which no id could name', async () => {
    await db.redis.mset({ 'shenma:environs:a.b:c': 1, 'shenma:environs:a:b': 2, 'shenma:extensions:x.y': evaluator })
    expect((await get(db.env, '/api/environs')).body).toEqual({
      status: 'success',
      data: ['a.b'],
      skipped: [{ key: 'shenma:environs:a.b:c', reason: "has a '.' inside a key segment, so no id can name it" }],
      next_cursor: null,
    })
    expect((await get(db.env, '/api/extensions')).body.skipped).toEqual([
      { key: 'shenma:extensions:x.y', reason: "has a '.' inside a key segment, so no id can name it" },
    ])
  })
})

describe('a path and its parent', () => {
  it('answer the same value: a variable with descendants merges them in', async () => {
    await db.redis.mset({
      'shenma:environs:model:default': { name: 'gpt', window: 8 },
      'shenma:environs:model:default:window': 128,
    })
    const parent = await get(db.env, '/api/environs/model')
    const child = await get(db.env, '/api/environs/model.default')
    expect(child.body.data).toEqual({ name: 'gpt', window: 128 })
    expect((parent.body.data as Record<string, unknown>).default).toEqual(child.body.data)
  })

  it('serve the descendants of a corrupt variable, reporting it', async () => {
    await db.redis.mset({ 'shenma:environs:chat': '{oops', 'shenma:environs:chat:title': 'Hi' })
    const { status, body } = await get(db.env, '/api/environs/chat')
    expect(status).toBe(200)
    expect(body.data).toEqual({ title: 'Hi' })
    expect(body.skipped).toEqual([{ key: 'shenma:environs:chat', reason: 'is not valid JSON (error at position 1)' }])
  })
})

describe('prompt ids', () => {
  it('contributed by two extensions go to the shorter extension id, in the list and by id', async () => {
    const withPrompt = (name: string, text: string) => ({
      name: 'n',
      version: '1',
      extensionType: 'prompt',
      contributes: { prompts: [{ name, prompt: text }] },
    })
    await db.redis.mset({
      'shenma:extensions:a': withPrompt('b.c', 'from a'),
      'shenma:extensions:a:b': withPrompt('c', 'from a.b'),
    })
    const list = await get(db.env, '/api/prompts')
    expect((list.body.data as { id: string }[]).map((p) => p.id)).toEqual(['a.b.c'])
    expect(list.body.skipped).toEqual([
      { key: 'shenma:extensions:a:b', reason: "contributes prompt id 'a.b.c', already taken by shenma:extensions:a" },
    ])
    expect((await get(db.env, '/api/prompts/a.b.c')).body.data).toMatchObject({ prompt: 'from a' })
  })

  it('of a corrupt extension answer 404 naming the extension and the reason', async () => {
    await db.redis.set('shenma:extensions:evaluator', '{"name": "evaluator"')
    const { status, body } = await get(db.env, '/api/prompts/evaluator.evaluate_quality')
    expect(status).toBe(404)
    expect(body.message).toBe(
      "prompt 'evaluator.evaluate_quality' belongs to extension 'evaluator', which is stored at shenma:extensions:evaluator but is not valid JSON (error at position 20)",
    )
  })
})
