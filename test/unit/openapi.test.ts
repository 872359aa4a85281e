// /openapi.json, generated from the routes' declarations: a valid OpenAPI 3.1
// document that lists every route the app serves. Runs on Node, where the
// validator (which compiles JSON Schemas to code) may run.
import { Validator } from '@seriousme/openapi-schema-validator'
import { describe, expect, it } from 'vitest'
import app from '../../functions/index'

type Operation = { security?: unknown[]; responses: Record<string, unknown> }
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> }

async function openapiDocument(): Promise<Document> {
  const res = await app.request('/openapi.json', {}, {})
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

  it('documents the error body on every route, and the bearer token on every /api route only', async () => {
    const document = await openapiDocument()
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method} ${path}`
        if (path.startsWith('/api/')) {
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
