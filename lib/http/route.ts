import { Hono } from 'hono/quick'
import { every } from 'hono/combine'
import type { Handler, MiddlewareHandler } from 'hono'
import { validator } from 'hono/validator'
import * as z from 'zod/mini'
import en from 'zod/v4/locales/en.js'
import type { AppEnv } from './context'
import { invalidRequest } from './input'

/**
 * A route as it is declared once for both of its readers: the Worker, which
 * checks the request's parts against `request`'s schemas (zod/mini) before
 * the handler runs, and the OpenAPI document (lib/http/openapi-document.ts),
 * generated from the same declarations at build time. The shape is
 * OpenAPI's own operation object, as @hono/zod-openapi's createRoute has it.
 */
export interface RouteDeclaration {
  tags: string[]
  summary: string
  description?: string
  /** `[]`: served without the bearer token. */
  security?: []
  /** Runs before the request is checked (a body's size limit and parse, authentication). */
  middleware?: readonly MiddlewareHandler<AppEnv>[]
  request?: {
    params?: z.ZodMiniObject
    query?: z.ZodMiniObject
    body?: {
      description?: string
      required?: boolean
      /** `example`: what /docs pre-fills, a body the example catalogue answers 2xx (test/unit/openapi-examples.test.ts). */
      content: { 'application/json': { schema: z.ZodMiniType; example?: unknown } }
    }
  }
  responses: Record<number, ResponseDeclaration>
}

export type Method = 'get' | 'post' | 'put' | 'delete'

/**
 * A route: its method and path, and its declaration, made on first use.
 * Building a route's schemas is most of what a Worker of this many routes
 * would do at startup; made when the route is first asked for, they cost
 * a cold start only that route's.
 */
export interface Route<R extends RouteDeclaration> {
  method: Method
  /** OpenAPI's form, `/api/prompts/{prompt_id}/render`: the full path, every group being mounted at `/`. */
  path: string
  declaration: () => R
}

export interface ResponseDeclaration {
  description: string
  content?: Record<string, { schema: z.ZodMiniType }>
  headers?: z.ZodMiniObject
}

// zod/mini carries no words of its own: a 400's message quotes these (invalidRequest).
z.config(en())

/** A route, its declaration's types kept for the handler's `c.req.valid()`. */
export function defineRoute<const R extends RouteDeclaration>(
  method: Method,
  path: string,
  declare: () => R,
): Route<R> {
  return { method, path, declaration: once(declare) }
}

/** `make`, called once, on first use: a schema the Worker builds only when a request needs it. */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined
  return () => (made ??= { value: make() }).value
}

type Part<R extends RouteDeclaration, K extends 'params' | 'query'> = NonNullable<R['request']>[K] extends z.ZodMiniType
  ? z.output<NonNullable<NonNullable<R['request']>[K]>>
  : never
type Body<R extends RouteDeclaration> = NonNullable<R['request']>['body'] extends {
  content: { 'application/json': { schema: infer S } }
}
  ? S extends z.ZodMiniType
    ? z.output<S>
    : never
  : never

/** What a route's handler reads with `c.req.valid(part)`: each part as its schema parsed it. */
export type InputOf<R extends RouteDeclaration> = {
  out: { param: Part<R, 'params'>; query: Part<R, 'query'>; json: Body<R> }
}

/** Each route, by its handler: how the document's generator finds them in an app's route table. */
const routes = new WeakMap<Handler, Route<RouteDeclaration>>()

/** The route a handler was registered with by Routes.openapi, if any. */
export function routeOf(handler: Handler): Route<RouteDeclaration> | undefined {
  return routes.get(handler)
}

/**
 * A group of routes, each registered with its declaration: its middleware,
 * then a check of each declared part of the request (400 BAD_REQUEST naming
 * each problem, lib/http/input.ts), then the handler.
 */
export class Routes extends Hono<AppEnv> {
  openapi<const R extends RouteDeclaration>(route: Route<R>, handler: Handler<AppEnv, string, InputOf<R>>): this {
    const prepare = once(() => every(...(route.declaration().middleware ?? []), ...checksOf(route.declaration())))
    routes.set(handler as Handler, route)
    const path = route.path.replace(/\{(\w+)\}/g, ':$1')
    this.on(route.method.toUpperCase(), [path], (c, next) => prepare()(c, next), handler as Handler)
    return this
  }
}

/** A validator of each part of the request the route declares. */
function checksOf({ request = {} }: RouteDeclaration): MiddlewareHandler<AppEnv>[] {
  const { params, query, body } = request
  const checks: MiddlewareHandler<AppEnv>[] = []
  if (query) checks.push(validator('query', (value) => checked(query, value, 'query')))
  if (params) checks.push(validator('param', (value) => checked(params, value, 'param')))
  if (body) checks.push(validator('json', (value) => checked(body.content['application/json'].schema, value, 'json')))
  return checks
}

function checked(schema: z.ZodMiniType, value: unknown, target: string): unknown {
  const result = schema.safeParse(value)
  if (!result.success) throw invalidRequest(target, result.error.issues)
  return result.data
}
