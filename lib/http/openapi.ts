import { z } from '@hono/zod-openapi'
import { ERROR_CODES } from '../errors'
import type { ErrorCode } from '../errors'
import { ERROR_STATUS } from './errors'
import type { RecordSchemaName } from './record-schemas'

/**
 * The pieces every route's OpenAPI description is made of: the answer
 * envelopes, the error body, and references to the stored records' JSON
 * Schemas. Routes declare their requests and answers with these
 * (functions/), and /openapi.json is generated from those declarations.
 */

/** `{"status": "error", ...}`: the one error body (lib/http/handlers.ts). */
export const ErrorBody = z
  .object({
    status: z.literal('error'),
    code: z.enum(ERROR_CODES),
    message: z.string().openapi({ description: 'What was wrong, naming the field, key or template place.' }),
  })
  .catchall(z.unknown())
  .openapi('Error', {
    description:
      'Some errors add fields: `details`, `variable`, `template`, `line`, `column` (as Go counts it: UTF-8 bytes from the line start, from 0); LIMIT_EXCEEDED, the `limit` passed; MISCONFIGURED, the `setting` at fault.',
  })

export const Skip = z
  .object({ key: z.string(), reason: z.string() })
  .openapi('Skip', { description: 'A stored record that could not be used, and why.' })

/** `{"status": "success", "data": ..., "skipped"?: [...]}`, registered as the component `name`. */
export function successOf<T extends z.ZodType>(name: string, data: T) {
  return z.object({ status: z.literal('success'), data, skipped: z.array(Skip).optional() }).openapi(name)
}

/** A JSON answer, as a route's `responses` entry. */
export function json<T extends z.ZodType>(description: string, schema: T) {
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
  return Object.fromEntries([...byStatus].map(([status, list]) => [status, json(list.join(', '), ErrorBody)]))
}

/** The errors of every route under /api: a bad token, a store that cannot be read, a setting that is wrong. */
export const API_ERRORS = ['UNAUTHORIZED', 'STORE_UNAVAILABLE', 'MISCONFIGURED'] as const satisfies readonly ErrorCode[]

/** A stored record, described by its JSON Schema from jsonschema/ (see registerRecordSchemas). */
export function recordSchema(name: RecordSchemaName) {
  const schema = z.unknown()
  // zod-to-openapi writes metadata into the generated schema as it is: here, only the reference.
  const reference = { $ref: `#/components/schemas/${name}` } as unknown as Parameters<typeof schema.openapi>[0]
  return schema.openapi(reference)
}
