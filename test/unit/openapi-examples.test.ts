// What /docs pre-fills when "Try it out" is clicked (public/openapi.json, as
// Swagger UI reads it): no query parameter has a value of its own (a label or
// a version the example catalogue lacks would fail the request), every path
// parameter and every body has an example, and each example passes the check
// the Worker itself makes of that request (the route's zod schemas; a written
// record, lib/publish's checkedRecord). test/e2e/docs-try-it-out.test.ts
// clicks them.
import { readFileSync } from 'node:fs'
import type { Handler } from 'hono'
import { describe, expect, it } from 'vitest'
import { RECORD_KINDS } from '../../lib/catalog'
import type { RecordKind } from '../../lib/catalog'
import { routeOf } from '../../lib/http/route'
import type { RouteDeclaration } from '../../lib/http/route'
import { checkedRecord } from '../../lib/publish'
import app from '../../functions/index'

type Json = Record<string, unknown>
interface Parameter {
  name: string
  in: string
  example?: unknown
  examples?: unknown
  schema: Json
}
interface Operation {
  parameters?: Parameter[]
  requestBody?: { content: Record<string, { example?: unknown; examples?: unknown }> }
}

const document = JSON.parse(readFileSync('public/openapi.json', 'utf8')) as {
  paths: Record<string, Record<string, Operation>>
}

const operations = Object.entries(document.paths).flatMap(([path, byMethod]) =>
  Object.entries(byMethod).map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, operation })),
)

/** Each route's declaration, by `GET /api/prompts/{prompt_id}`. */
const declarations = new Map<string, RouteDeclaration>(
  app.routes.flatMap(({ handler }) => {
    const route = routeOf(handler as Handler)
    return route ? [[`${route.method.toUpperCase()} ${route.path}`, route.declaration()] as const] : []
  }),
)

/** Whether `schema` or anything in it pre-fills a value: an example, examples, or a default. */
function prefills(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(prefills)
  if (typeof value !== 'object' || value === null) return false
  return Object.entries(value).some(([key, v]) => ['example', 'examples', 'default'].includes(key) || prefills(v))
}

const exampleOf = (p: Parameter) => p.example ?? p.schema.example

describe('the examples /docs pre-fills', () => {
  it('are found: the document has operations, each with its declaration', () => {
    expect(operations.length).toBeGreaterThanOrEqual(30)
    for (const { where } of operations) expect(declarations.has(where), where).toBe(true)
  })

  it('give no query parameter a value', () => {
    const query = operations.flatMap(({ where, operation }) =>
      (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => ({ where, p })),
    )
    expect(query.map(({ p }) => p.name)).toEqual(expect.arrayContaining(['label', 'version', 'cursor', 'limit']))
    expect(query.filter(({ p }) => prefills(p)).map(({ where, p }) => `${where} ?${p.name}`)).toEqual([])
  })

  it('give every path parameter a value its route accepts', () => {
    for (const { where, operation } of operations) {
      const path = (operation.parameters ?? []).filter((p) => p.in === 'path')
      if (path.length === 0) continue
      const values = Object.fromEntries(path.map((p) => [p.name, exampleOf(p)]))
      const result = declarations.get(where)?.request?.params?.safeParse(values)
      expect(result?.success, `${where} ${JSON.stringify(values)}: ${result?.error?.message}`).toBe(true)
    }
  })

  it('give every body an example its route accepts', () => {
    const bodies = operations.filter(({ operation }) => operation.requestBody)
    expect(bodies.length).toBeGreaterThanOrEqual(8)
    for (const { where, operation } of bodies) {
      const example = operation.requestBody?.content['application/json']?.example
      expect(example, where).toBeDefined()
      const schema = declarations.get(where)?.request?.body?.content['application/json'].schema
      const result = schema?.safeParse(example)
      expect(result?.success, `${where}: ${result?.error?.message}`).toBe(true)
    }
  })

  it('write records the catalogue would serve, one of each kind, none of examples/', async () => {
    for (const kind of RECORD_KINDS) {
      const where = `PUT /api/${kind}/{${kind.slice(0, -1)}_id}`
      const operation = document.paths[where.slice(4)]?.put
      const id = operation?.parameters?.find((p) => p.in === 'path')
      const body = operation?.requestBody?.content['application/json']?.example
      await expect(checkedRecord(kind as RecordKind, String(id && exampleOf(id)), body), where).resolves.toBeTruthy()
      // A write tried from /docs leaves the examples as they were.
      const read = document.paths[where.slice(4)]?.get
      if (read) expect(exampleOf(read.parameters?.[0] as Parameter), where).not.toBe(exampleOf(id as Parameter))
    }
  })
})
