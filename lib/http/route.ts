import { Hono } from 'hono'
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
  method: 'get' | 'post' | 'put' | 'delete'
  /** OpenAPI's form, `/{prompt_id}/render`, relative to the group's mount point. */
  path: string
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
    body?: { description?: string; required?: boolean; content: { 'application/json': { schema: z.ZodMiniType } } }
  }
  responses: Record<number, ResponseDeclaration>
}

export interface ResponseDeclaration {
  description: string
  content?: Record<string, { schema: z.ZodMiniType }>
  headers?: z.ZodMiniObject
}

// zod/mini carries no words of its own: a 400's message quotes these (invalidRequest).
z.config(en())

/** A route declaration, its types kept for the handler's `c.req.valid()`. */
export function defineRoute<const R extends RouteDeclaration>(declaration: R): R {
  return declaration
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

/** Each route's declaration, by its handler: how the document's generator finds them in an app's route table. */
const declarations = new WeakMap<Handler, RouteDeclaration>()

/** The declaration a handler was registered with by Routes.openapi, if any. */
export function declarationOf(handler: Handler): RouteDeclaration | undefined {
  return declarations.get(handler)
}

/**
 * A group of routes, each registered with its declaration: its middleware,
 * then a check of each declared part of the request (400 BAD_REQUEST naming
 * each problem, lib/http/input.ts), then the handler.
 */
export class Routes extends Hono<AppEnv> {
  openapi<const R extends RouteDeclaration>(declaration: R, handler: Handler<AppEnv, string, InputOf<R>>): this {
    const { params, query, body } = declaration.request ?? {}
    const checks: MiddlewareHandler<AppEnv>[] = []
    if (query) checks.push(validator('query', (value) => checked(query, value, 'query')))
    if (params) checks.push(validator('param', (value) => checked(params, value, 'param')))
    if (body) checks.push(validator('json', (value) => checked(body.content['application/json'].schema, value, 'json')))
    declarations.set(handler as Handler, declaration)
    const path = declaration.path.replace(/\{(\w+)\}/g, ':$1')
    const handlers = [...(declaration.middleware ?? []), ...checks, handler as Handler]
    this.on(declaration.method.toUpperCase(), [path], ...handlers)
    return this
  }
}

function checked(schema: z.ZodMiniType, value: unknown, target: string): unknown {
  const result = schema.safeParse(value)
  if (!result.success) throw invalidRequest(target, result.error.issues)
  return result.data
}
