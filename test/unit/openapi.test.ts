// /openapi.json, generated from the routes' declarations: a valid OpenAPI 3.1
// document that lists every route the app serves. Runs on Node, where the
// validator (which compiles JSON Schemas to code) may run.
import { Validator } from '@seriousme/openapi-schema-validator'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import app from '../../functions/index'

type Parameter = { name: string; in: string; schema: { maxLength?: number; pattern?: string } }
type Operation = {
  security?: unknown[]
  parameters?: Parameter[]
  responses: Record<string, { description: string }>
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> }

async function openapiDocument(): Promise<Document> {
  // The static assets, as workerd's ASSETS binding answers them.
  const ASSETS = { fetch: (url: URL) => new Response(readFileSync(`public${url.pathname}`)) }
  const res = await app.request('/openapi.json', {}, { ASSETS })
  expect(res.status).toBe(200)
  return (await res.json()) as Document
}

/** The app's own routes, `GET /api/prompts/{prompt_id}` style; middleware (method ALL) is not a route. */
function servedRoutes(): string[] {
  const routes = app.routes
    .filter((r) => r.method !== 'ALL')
    .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
  return [...new Set(routes)].sort()
}

describe('/openapi.json', () => {
  it('validates as OpenAPI 3.1', async () => {
    const document = await openapiDocument()
    expect(document.openapi).toBe('3.1.0')
    const validator = new Validator()
    const result = await validator.validate(document as unknown as Record<string, unknown>)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  it('lists every route the app serves, and no other', async () => {
    const document = await openapiDocument()
    const documented = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort()
    expect(servedRoutes().length).toBeGreaterThanOrEqual(12)
    expect(documented).toEqual(servedRoutes())
  })

  it('documents the error body on every route, and the bearer token on every /api and /v1 route and /mcp only', async () => {
    const document = await openapiDocument()
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method} ${path}`
        if (path.startsWith('/api/') || path.startsWith('/v1/') || path === '/mcp') {
          expect(operation.security, where).toBeUndefined()
          expect(Object.keys(operation.responses), where).toContain('401')
        } else {
          expect(operation.security, where).toEqual([])
        }
        expect(Object.keys(operation.responses), where).toContain('500')
      }
    }
  })
})

describe('the limits and codes of issue 12 in the document', () => {
  /** The codes a route's error answers name, by status. */
  function codesOf(operation: Operation | undefined): Record<string, string[]> {
    const responses = Object.entries(operation?.responses ?? {}).filter(([status]) => status !== '200')
    return Object.fromEntries(responses.map(([status, r]) => [status, r.description.split(', ')]))
  }

  it('gives every route with a body 413 PAYLOAD_TOO_LARGE and every render 422 LIMIT_EXCEEDED', async () => {
    const { paths } = await openapiDocument()
    for (const path of ['/api/prompts/{prompt_id}/render', '/api/prompts/{prompt_id}/chat']) {
      const codes = codesOf(paths[path]?.post)
      expect(codes['413'], path).toEqual(['PAYLOAD_TOO_LARGE'])
      expect(codes['422'], path).toEqual(['LIMIT_EXCEEDED'])
      expect(codes['400'], path).toContain('BAD_REQUEST')
    }
  })

  it('gives every /api route 503 MISCONFIGURED, and every lookup by id 400 BAD_REQUEST', async () => {
    const { paths } = await openapiDocument()
    for (const [path, operations] of Object.entries(paths)) {
      if (!path.startsWith('/api/')) continue
      for (const [method, operation] of Object.entries(operations)) {
        const codes = codesOf(operation)
        expect(codes['503'], `${method} ${path}`).toContain('MISCONFIGURED')
        if (path.includes('{')) expect(codes['400'], `${method} ${path}`).toContain('BAD_REQUEST')
      }
    }
  })

  it('shows the id limits on every id in a path', async () => {
    const { paths } = await openapiDocument()
    const ids = Object.values(paths)
      .flatMap((operations) => Object.values(operations))
      .flatMap((operation) => operation.parameters ?? [])
      .filter((parameter) => parameter.in === 'path' && parameter.name.endsWith('_id'))
    expect(new Set(ids.map((p) => p.name))).toEqual(new Set(['prompt_id', 'extension_id', 'environ_id', 'tool_id']))
    for (const { name, schema } of ids) {
      expect(schema.maxLength, name).toBe(256)
      expect(schema.pattern, name).toBeTruthy()
    }
    const prompt = ids.find((p) => p.name === 'prompt_id')?.schema.pattern as string
    expect(new RegExp(prompt).test('a.b.c.d.e.f.g.h.i')).toBe(true)
    expect(new RegExp(prompt).test('a.b.c.d.e.f.g.h.i.j')).toBe(false)
  })
})
