import * as z from 'zod/mini'
import type { Context } from 'hono'
import { ID_KIND, RECORD_KINDS } from '../lib/catalog'
import type { RecordKind } from '../lib/catalog'
import {
  API_ERRORS,
  adminAuth,
  errorsOf,
  json,
  labelOf,
  recordBody,
  recordSchema,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
  settingsOf,
  writerOf,
} from '../lib/http'
import type { AppEnv } from '../lib/http'
import { requestLog } from '../lib/log'
import { deleteRecord, putRecord } from '../lib/publish'
import { BODY_LIMITS, LabelQuery, idParam } from './shapes'

/** How each kind's id is named in its path, its body's schema (made on first use), and an example id. */
export const KIND_ROUTES = {
  extensions: { param: 'extension_id', schema: () => recordSchema('Extension'), example: 'evaluator' },
  prompts: { param: 'prompt_id', schema: () => recordSchema('Prompt'), example: 'team.review' },
  environs: {
    param: 'environ_id',
    schema: () => described(z.unknown(), { description: 'The value: any JSON.' }),
    example: 'vscode.rules',
  },
  tools: { param: 'tool_id', schema: () => recordSchema('Tool'), example: 'codebase_lookup_ref' },
} as const satisfies Record<RecordKind, unknown>

/** The longest `?message=` kept with a version. */
const MAX_MESSAGE_CHARS = 500

const WriteQuery = once(() =>
  z.object({
    label: LabelQuery(),
    message: described(z.optional(z.string().check(z.maxLength(MAX_MESSAGE_CHARS))), {
      description: 'Kept with the version (at most 500 characters).',
      example: 'tighter wording',
    }),
  }),
)

const Written = once(() =>
  described(
    z.object({
      id: z.string(),
      key: described(z.string(), {
        description: "The Redis key written: the base key, or the label's own.",
        example: 'shenma:templates:team:review',
      }),
      version: described(z.int(), { example: 3 }),
      label: z.nullable(z.string()),
    }),
    { id: 'Written' },
  ),
)
const WriteAnswer = once(() => successOf('WriteAnswer', Written()))

const WRITE_ERRORS = [...API_ERRORS, 'WRITES_DISABLED', 'BAD_REQUEST', 'CONFLICT'] as const

/** PUT and DELETE of one kind's records. */
function writeRoutes(kind: RecordKind) {
  const { param, schema, example } = KIND_ROUTES[kind]
  const singular = ID_KIND[kind]
  const params = once(() => z.object({ [param]: idParam(singular, `The ${singular} id.`, example) }))
  const put = defineRoute('put', `/${kind}/{${param}}`, () => ({
    tags: ['writes'],
    summary: `Writes a ${singular}, as a new version`,
    description: `Needs ADMIN_TOKEN. The body is checked as the catalogue reads ${kind} (templates parsed); nothing is written when it fails.${kind === 'tools' ? ' Its `{module}_{name}` must be the tool_id.' : ''} ${BODY_LIMITS}`,
    middleware: [adminAuth, ...recordBody],
    request: {
      params: params(),
      query: WriteQuery(),
      body: { content: { 'application/json': { schema: schema() } }, required: true },
    },
    responses: {
      200: json('Written', WriteAnswer()),
      ...errorsOf(...WRITE_ERRORS, 'TEMPLATE_SYNTAX', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'),
    },
  }))
  const del = defineRoute('delete', `/${kind}/{${param}}`, () => ({
    tags: ['writes'],
    summary: `Deletes a ${singular}, as a new version (under a label: hides it there)`,
    description: 'Needs ADMIN_TOKEN.',
    middleware: [adminAuth],
    request: { params: params(), query: WriteQuery() },
    responses: {
      200: json('Deleted', WriteAnswer()),
      ...errorsOf(...WRITE_ERRORS, 'NOT_FOUND'),
    },
  }))
  return { put, del, param }
}

function optionsOf(c: Context<AppEnv>) {
  return {
    label: labelOf(c),
    message: c.req.query('message') || undefined,
    historyLimit: settingsOf(c).historyLimit,
  }
}

/**
 * PUT and DELETE /api/{extensions|prompts|environs|tools}/{id}: writes
 * through the service, each a new version of the record (lib/publish),
 * enabled by ADMIN_TOKEN. `?label=` writes the label's own records.
 */
export const writes = new Routes()

for (const kind of RECORD_KINDS) {
  const { put, del, param } = writeRoutes(kind)
  writes.openapi(put, async (c) => {
    const id = (c.req.valid('param') as Record<string, string>)[param] as string
    const written = await putRecord(writerOf(c), kind, id, await c.req.json(), optionsOf(c))
    requestLog()?.set('written', { key: written.key, version: written.version })
    return success(c, written)
  })
  writes.openapi(del, async (c) => {
    const id = (c.req.valid('param') as Record<string, string>)[param] as string
    const written = await deleteRecord(writerOf(c), kind, id, optionsOf(c))
    requestLog()?.set('written', { key: written.key, version: written.version })
    return success(c, written)
  })
}
