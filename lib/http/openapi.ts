import { z } from '@hono/zod-openapi'
import type { OpenAPIHono } from '@hono/zod-openapi'
import extension from '../../jsonschema/extension.json'
import parameters from '../../jsonschema/parameters.json'
import prompt from '../../jsonschema/prompt.json'
import tool from '../../jsonschema/tool.json'
import { ERROR_CODES } from '../errors'
import type { ErrorCode } from '../errors'
import { ERROR_STATUS } from './errors'

/**
 * The pieces every route's OpenAPI description is made of: the answer
 * envelopes, the error body, and the stored records' JSON Schemas. Routes
 * declare their requests and answers with these (functions/), and
 * /openapi.json is generated from those declarations.
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
export function recordSchema(name: (typeof RECORD_SCHEMAS)[number][0]) {
  const schema = z.unknown()
  // zod-to-openapi writes metadata into the generated schema as it is: here, only the reference.
  const reference = { $ref: `#/components/schemas/${name}` } as unknown as Parameters<typeof schema.openapi>[0]
  return schema.openapi(reference)
}

/** jsonschema/ files by component name; their file names are how they refer to each other. */
const RECORD_SCHEMAS = [
  ['Extension', 'extension.json', extension],
  ['Prompt', 'prompt.json', prompt],
  ['Parameters', 'parameters.json', parameters],
  ['Tool', 'tool.json', tool],
] as const

/**
 * Adds the record schemas to the document as components. They are draft-07
 * files that point at each other by file name and at their own
 * `definitions`; here each definition becomes a component of its own
 * (`Prompt.message`) and every `$ref` points into the document.
 */
export function registerRecordSchemas(app: { openAPIRegistry: OpenAPIHono['openAPIRegistry'] }): void {
  const names = new Map<string, string>(RECORD_SCHEMAS.map(([name, file]) => [file, name]))
  for (const [name, file, schema] of RECORD_SCHEMAS) {
    const { $schema: _, $id: __, definitions, ...root } = schema as Record<string, unknown>
    const refs = (value: unknown) => rewriteRefs(value, file, names)
    app.openAPIRegistry.registerComponent('schemas', name, refs(root) as object)
    for (const [definition, body] of Object.entries((definitions ?? {}) as Record<string, unknown>)) {
      app.openAPIRegistry.registerComponent('schemas', `${name}.${definition}`, refs(body) as object)
    }
  }
}

function rewriteRefs(value: unknown, file: string, names: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, file, names))
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' ? componentRef(v, file, names) : rewriteRefs(v, file, names),
    ]),
  )
}

/** `prompt.json#/definitions/supports`, or `#/definitions/x` inside `file`, as a component reference. */
function componentRef(ref: string, file: string, names: ReadonlyMap<string, string>): string {
  const [target = '', pointer = ''] = ref.split('#')
  const name = names.get(target || file)
  const definition = /^\/definitions\/([^/]+)$/.exec(pointer)?.[1]
  if (name === undefined || (pointer !== '' && definition === undefined)) {
    throw new Error(`jsonschema/${file}: cannot place $ref ${ref} in the OpenAPI document`)
  }
  return `#/components/schemas/${definition ? `${name}.${definition}` : name}`
}
