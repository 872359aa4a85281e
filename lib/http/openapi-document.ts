import type { Handler } from 'hono'
import * as z from 'zod/mini'
import type { JSONSchema } from 'zod/v4/core'
import { recordSchemaComponents } from './record-schemas'
import { routeOf } from './route'
import type { Method, RouteDeclaration } from './route'

// The OpenAPI 3.1 document of an app, generated from its routes'
// declarations (lib/http/route.ts) by zod's own JSON Schema generator. Run
// at build time only (functions/openapi.ts, scripts/openapi-document.mjs):
// nothing here is in the Worker.

type Json = Record<string, unknown>
type Schema = z.ZodMiniType

const COMPONENTS = '#/components/schemas/'
/** The made-up component name of a schema the document shows in place. */
const INLINE = '__inline'

/** What the document says of itself: its title, version and description, the security every operation needs. */
export interface DocumentHead {
  info: { title: string; version: string; description: string }
  security: Record<string, string[]>[]
  securitySchemes: Record<string, Json>
}

/**
 * Every route of `app` that has a declaration, as the document's paths, and
 * every schema named by an `id` (lib/http/openapi.ts's described) and every
 * stored record's schema as its components.
 */
export function openapiDocumentOf(
  app: { routes: readonly { method: string; path: string; handler: unknown }[] },
  head: DocumentHead,
): Json {
  const schemas = new SchemaTable()
  const paths: Record<string, Record<string, Json>> = {}
  for (const { path, handler } of app.routes) {
    const route = routeOf(handler as Handler)
    if (!route) continue
    const documented = path.replace(/:(\w+)/g, '{$1}')
    ;(paths[documented] ??= {})[route.method satisfies Method] = operation(route.declaration(), schemas)
  }
  const resolved = schemas.resolve(paths)
  return {
    openapi: '3.1.0',
    info: head.info,
    security: head.security,
    components: {
      schemas: { ...recordSchemaComponents(), ...schemas.components() },
      securitySchemes: head.securitySchemes,
    },
    paths: resolved,
  }
}

function operation(declaration: RouteDeclaration, schemas: SchemaTable): Json {
  const { params, query, body } = declaration.request ?? {}
  const parameters = [...parametersOf(params, 'path', schemas), ...parametersOf(query, 'query', schemas)]
  const responses = Object.fromEntries(
    Object.entries(declaration.responses).map(([status, response]) => {
      const content = response.content && mapValues(response.content, ({ schema }) => ({ schema: schemas.of(schema) }))
      const headers = response.headers && Object.fromEntries(fieldsOf(response.headers, schemas))
      return [status, { description: response.description, ...(headers && { headers }), ...(content && { content }) }]
    }),
  )
  return {
    tags: declaration.tags,
    summary: declaration.summary,
    ...(declaration.description && { description: declaration.description }),
    ...(declaration.security && { security: declaration.security }),
    ...(parameters.length > 0 && { parameters }),
    ...(body && {
      requestBody: {
        ...(body.description && { description: body.description }),
        ...(body.required && { required: true }),
        content: mapValues(body.content, ({ schema, example }) => ({
          schema: schemas.of(schema),
          ...(example !== undefined && { example }),
        })),
      },
    }),
    responses,
  }
}

function parametersOf(object: z.ZodMiniObject | undefined, where: 'path' | 'query', schemas: SchemaTable): Json[] {
  if (!object) return []
  return fieldsOf(object, schemas).map(([name, field]) => ({ ...field, name, in: where }))
}

/** Each member of an object schema as OpenAPI describes a parameter or a header: its schema, whether required, its description. */
function fieldsOf(object: z.ZodMiniObject, schemas: SchemaTable): [string, Json][] {
  return Object.entries(object.def.shape as Record<string, Schema>).map(([name, schema]) => {
    const description = z.globalRegistry.get(schema)?.description
    const field = { schema: schemas.of(schema), required: schema._zod.optin !== 'optional' }
    return [name, description === undefined ? field : { ...field, description }]
  })
}

function mapValues<T, U>(record: Record<string, T>, f: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, f(value)]))
}

/**
 * The schemas a document names, converted together by zod: each named one
 * (an `id` in zod's global registry) once, as a component every use refers
 * to; each other one in place. `of` hands out a reference to a made-up
 * component (INLINE) that `resolve` replaces with the schema itself, once
 * every schema is known.
 */
class SchemaTable {
  readonly #registry = z.registry<{ id: string }>()
  #placeholders = 0
  #converted: Record<string, JSONSchema.BaseSchema> | undefined

  of(schema: Schema): Json {
    const named = z.globalRegistry.get(schema)?.id
    if (named !== undefined) {
      if (!this.#registry.has(schema)) this.#registry.add(schema, { id: named })
      return { $ref: COMPONENTS + named }
    }
    let id = this.#registry.get(schema)?.id
    if (id === undefined) {
      id = `${INLINE}${this.#placeholders++}`
      this.#registry.add(schema, { id })
    }
    return { $ref: COMPONENTS + id }
  }

  /** `value` with every placeholder replaced by its schema. */
  resolve<T>(value: T): T {
    const converted = this.#convert()
    const replace = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(replace)
      if (typeof v !== 'object' || v === null) return v
      const ref = (v as Json).$ref
      if (typeof ref === 'string' && ref.startsWith(COMPONENTS + INLINE)) {
        return replace(converted[ref.slice(COMPONENTS.length)])
      }
      return mapValues(v as Json, replace)
    }
    return replace(value) as T
  }

  components(): Record<string, JSONSchema.BaseSchema> {
    const converted = this.#convert()
    return this.resolve(Object.fromEntries(Object.entries(converted).filter(([id]) => !id.startsWith(INLINE))))
  }

  #convert(): Record<string, JSONSchema.BaseSchema> {
    if (this.#converted) return this.#converted
    // Every named schema, even one only another refers to, so that a reference is to a component.
    for (const [id, schema] of z.globalRegistry._idmap) {
      if (!this.#registry.has(schema as Schema)) this.#registry.add(schema as Schema, { id })
    }
    const { schemas } = z.toJSONSchema(this.#registry, {
      target: 'draft-2020-12',
      metadata: z.globalRegistry,
      uri: (id) => COMPONENTS + id,
      unrepresentable: 'any',
      override: ({ zodSchema, jsonSchema }) => {
        // A request's object keeps what it does not declare (zod drops it): no `additionalProperties: false`.
        if (zodSchema._zod.def.type === 'object' && jsonSchema.additionalProperties === false)
          delete jsonSchema.additionalProperties
      },
    })
    this.#converted = mapValues(schemas, ({ $schema: _, $id: __, ...schema }) => schema)
    return this.#converted
  }
}
