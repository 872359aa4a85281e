import * as z from 'zod/mini'
import type { GlobalMeta } from 'zod/v4/core'
import { ERROR_CODES } from '../errors'
import type { ErrorCode } from '../errors'
import { ERROR_STATUS } from './errors'
import { once } from './route'
import type { RecordSchemaName } from './record-schemas'

/**
 * The pieces every route's OpenAPI description is made of: the answer
 * envelopes, the error body, and references to the stored records' JSON
 * Schemas. Routes declare their requests and answers with these
 * (functions/), and /openapi.json is generated from those declarations.
 */

/**
 * `schema`, described in the OpenAPI document by `meta`: a description, an
 * example, an `id` naming it as a component. zod's global registry holds it,
 * where the document's generator (openapi-document.ts) reads it.
 */
export function described<T extends z.ZodMiniType>(schema: T, meta: GlobalMeta & { example?: unknown }): T {
  z.globalRegistry.add(schema, meta)
  return schema
}

/** `{"status": "error", ...}`: the one error body (lib/http/handlers.ts). */
export const ErrorBody = once(() =>
  described(
    z.catchall(
      z.object({
        status: z.literal('error'),
        code: z.enum(ERROR_CODES),
        message: described(z.string(), { description: 'What was wrong, naming the field, key or template place.' }),
      }),
      z.unknown(),
    ),
    {
      id: 'Error',
      description:
        'Some errors add fields: `details`, `variable`, `template`, `line`, `column` (as Go counts it: UTF-8 bytes from the line start, from 0); LIMIT_EXCEEDED, the `limit` passed; MISCONFIGURED, the `setting` at fault; TESTS_FAILED, the `report` of the tests run; an explained render (every draft render, `?explain=true`), the `analysis` of its templates (`reads`, `tools`, `functions`) whenever they compiled.',
    },
  ),
)

export const Skip = once(() =>
  described(z.object({ key: z.string(), reason: z.string() }), {
    id: 'Skip',
    description: 'A stored record that could not be used, and why.',
  }),
)

/** `{"status": "success", "data": ..., "skipped"?: [...]}`, registered as the component `name`. */
export function successOf<T extends z.ZodMiniType>(name: string, data: T) {
  return described(z.object({ status: z.literal('success'), data, skipped: z.optional(z.array(Skip())) }), { id: name })
}

/** A listing's page (paged): successOf's, and `next_cursor`. */
export function pageOf<T extends z.ZodMiniType>(name: string, data: T) {
  const next = described(z.nullable(z.string()), {
    description: 'The `cursor` of the next page; null on the last.',
    example: 'WyJzaGVubWE6dG9vbHM6Y29kZWJhc2U6bG9va3VwX3JlZiJd',
  })
  return described(
    z.object({ status: z.literal('success'), data, skipped: z.optional(z.array(Skip())), next_cursor: next }),
    { id: name },
  )
}

/** A JSON answer, as a route's `responses` entry. */
export function json<T extends z.ZodMiniType>(description: string, schema: T) {
  return { description, content: { 'application/json': { schema } } }
}

/**
 * The error answers a route can give, by status; each names its codes. Every
 * route can give 500 INTERNAL, and every /api route 401 when API_TOKEN is set.
 */
export function errorsOf(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of new Set<ErrorCode>([...codes, 'INTERNAL'])) {
    const status = ERROR_STATUS[code]
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return Object.fromEntries([...byStatus].map(([status, list]) => [status, json(list.join(', '), ErrorBody())]))
}

/** The errors of every route under /api: a bad token, a store that cannot be read, a setting that is wrong. */
export const API_ERRORS = ['UNAUTHORIZED', 'STORE_UNAVAILABLE', 'MISCONFIGURED'] as const satisfies readonly ErrorCode[]

/** A stored record, described by its JSON Schema from jsonschema/ (see registerRecordSchemas). */
export function recordSchema(name: RecordSchemaName) {
  // The generator writes metadata into the schema as it is: here, only the reference.
  return described(z.unknown(), { $ref: `#/components/schemas/${name}` })
}
