// The read-only API against a real Redis, with records written through the
// real Upstash client the way publishing services write them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import evaluator from '../../examples/extensions/evaluator.json'
import lookupRef from '../../examples/tools/codebase/lookup_ref.json'
import translate from '../../examples/tools/translate/zh_en.json'
import { freshRedis, get, call } from '../support/harness'
import type { TestRedis } from '../support/harness'

let db: TestRedis

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.mset({
    'shenma:extensions:evaluator': evaluator,
    'shenma:tools:codebase:lookup_ref': lookupRef,
    'shenma:tools:translate:zh_en': translate,
    'shenma:environs:vscode:programming_language': 'go',
    'shenma:environs:vscode:frameworks': ['gin', 'gorm', 'gin-swagger'],
  })
})
afterAll(() => db.release())

describe('extensions', () => {
  it('lists the example extension with its summary', async () => {
    const { status, body } = await get(db.env, '/api/extensions')
    expect(status).toBe(200)
    expect(body).toEqual({
      status: 'success',
      data: [
        {
          id: 'evaluator',
          publisher: 'zgsm-ai',
          displayName: 'Project Quality Evaluator',
          description: evaluator.description,
          version: '1.0.0',
          prompts: ['evaluator.evaluate_quality', 'evaluator.review_symbol'],
        },
      ],
      next_cursor: null,
    })
  })

  it('answers one extension with its whole record', async () => {
    const { status, body } = await get(db.env, '/api/extensions/evaluator')
    expect(status).toBe(200)
    expect(body.data).toEqual(evaluator)
  })

  it('answers 404 NOT_FOUND for an unknown extension', async () => {
    const { status, body } = await get(db.env, '/api/extensions/nope')
    expect(status).toBe(404)
    expect(body).toEqual({ status: 'error', code: 'NOT_FOUND', message: "extension 'nope' does not exist" })
  })
})

describe('prompts', () => {
  it('lists the extension prompt', async () => {
    const { body } = await get(db.env, '/api/prompts')
    expect(body.data).toEqual([
      {
        id: 'evaluator.evaluate_quality',
        origin: 'extension',
        kind: 'messages',
        description: evaluator.description,
        supports: ['chat', 'codereview'],
      },
      {
        id: 'evaluator.review_symbol',
        origin: 'extension',
        kind: 'prompt',
        description: evaluator.contributes.prompts[1]?.description,
        supports: ['chat', 'codereview'],
      },
    ])
  })

  it('filters by supports and by extension', async () => {
    const ids = async (query: string) =>
      ((await get(db.env, `/api/prompts${query}`)).body.data as { id: string }[]).map((p) => p.id)
    const both = ['evaluator.evaluate_quality', 'evaluator.review_symbol']
    expect(await ids('?supports=chat')).toEqual(both)
    expect(await ids('?supports=completion')).toEqual([])
    expect(await ids('?supports=chat,codereview')).toEqual(both)
    expect(await ids('?extension=evaluator')).toEqual(both)
    expect(await ids('?extension=evalu')).toEqual([])
  })

  it('answers one prompt with its template and normalised parameters', async () => {
    const { status, body } = await get(db.env, '/api/prompts/evaluator.evaluate_quality')
    expect(status).toBe(200)
    expect(body.data).toEqual({
      id: 'evaluator.evaluate_quality',
      origin: 'extension',
      kind: 'messages',
      description: evaluator.description,
      supports: ['chat', 'codereview'],
      messages: evaluator.contributes.prompts[0]!.messages,
      parameters: {
        type: 'object',
        properties: { repo: { type: 'string', default: '', description: 'Repository URL' } },
        required: [],
      },
      returns: [],
      tools: evaluator.contributes.prompts[0]!.tools ?? [],
      tests: evaluator.contributes.prompts[0]!.tests,
    })
  })

  it('answers 404 NOT_FOUND for unknown prompts, including a known extension with an unknown prompt', async () => {
    for (const id of ['nope', 'evaluator.nope', 'nope.evaluate_quality']) {
      const { status, body } = await get(db.env, `/api/prompts/${id}`)
      expect(status).toBe(404)
      expect(body).toEqual({ status: 'error', code: 'NOT_FOUND', message: `prompt '${id}' does not exist` })
    }
  })
})

describe('environs', () => {
  it('lists the paths', async () => {
    const { body } = await get(db.env, '/api/environs')
    expect(body).toEqual({
      status: 'success',
      data: ['vscode.frameworks', 'vscode.programming_language'],
      next_cursor: null,
    })
  })

  it('answers a variable, and the subtree for a prefix of paths', async () => {
    expect((await get(db.env, '/api/environs/vscode.frameworks')).body.data).toEqual(['gin', 'gorm', 'gin-swagger'])
    expect((await get(db.env, '/api/environs/vscode.programming_language')).body.data).toBe('go')
    const { status, body } = await get(db.env, '/api/environs/vscode')
    expect(status).toBe(200)
    expect(body).toEqual({
      status: 'success',
      data: { programming_language: 'go', frameworks: ['gin', 'gorm', 'gin-swagger'] },
    })
  })

  it('answers 404 NOT_FOUND for an unknown path, and for a partial segment', async () => {
    for (const id of ['nope', 'vscode.nope', 'vsc']) {
      const { status, body } = await get(db.env, `/api/environs/${id}`)
      expect(status).toBe(404)
      expect(body).toEqual({ status: 'error', code: 'NOT_FOUND', message: `environ '${id}' does not exist` })
    }
  })
})

describe('tools', () => {
  it('lists the tools by function name', async () => {
    const { body } = await get(db.env, '/api/tools')
    expect(body.data).toEqual([
      {
        id: 'codebase_lookup_ref',
        name: 'lookup_ref',
        module: 'codebase',
        type: 'restful',
        description: lookupRef.description,
        supports: ['chat', 'codereview'],
      },
      {
        id: 'translate_zh_en',
        name: 'zh_en',
        module: 'translate',
        type: 'restful',
        description: translate.description,
        supports: ['chat', 'completion', 'codereview'],
      },
    ])
  })

  it('answers one tool with its record, and 404 for an unknown one', async () => {
    expect((await get(db.env, '/api/tools/codebase_lookup_ref')).body.data).toEqual(lookupRef)
    const { status, body } = await get(db.env, '/api/tools/codebase_nope')
    expect(status).toBe(404)
    expect(body.code).toBe('NOT_FOUND')
  })
})

describe('methods and routes', () => {
  it('answers 405 METHOD_NOT_ALLOWED with Allow on every known route', async () => {
    for (const [path, allow] of [
      ['/api/extensions', 'GET, HEAD'],
      ['/api/prompts/evaluator.evaluate_quality', 'GET, HEAD, PUT, DELETE'],
      ['/api/environs', 'GET, HEAD'],
      ['/api/tools/x', 'GET, HEAD, PUT, DELETE'],
      ['/api/tools/x/versions', 'GET, HEAD'],
    ] as const) {
      const { status, headers, body } = await call(db.env, 'POST', path, {})
      expect(status).toBe(405)
      expect(headers.get('allow')).toBe(allow)
      expect(body.code).toBe('METHOD_NOT_ALLOWED')
    }
  })

  it('answers 404 NOT_FOUND for an unknown route', async () => {
    const { status, body } = await get(db.env, '/api/nothing-here')
    expect(status).toBe(404)
    expect(body).toEqual({ status: 'error', code: 'NOT_FOUND', message: 'no route for GET /api/nothing-here' })
  })
})
