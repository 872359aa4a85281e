import type { Handler } from 'hono'
import * as z from 'zod/mini'
import { ID_KIND, recordVersion, recordVersions } from '../lib/catalog'
import type { RecordKind } from '../lib/catalog'
import {
  API_ERRORS,
  errorsOf,
  json,
  storeOf,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
} from '../lib/http'
import type { AppEnv } from '../lib/http'
import { ReadQuery, idParam, servedHeaders, versionNumber } from './shapes'
import { KIND_ROUTES } from './writes'

const Version = once(() =>
  described(
    z.object({
      version: described(z.int(), { example: 3 }),
      created_at: described(z.string(), { example: '2026-11-24T10:00:00.000Z' }),
      message: z.nullable(z.string()),
      deleted: described(z.boolean(), {
        description: 'The version is the deletion of the record (under a label: its hiding).',
      }),
      by: described(z.nullable(z.string()), {
        description:
          'The publisher who wrote it (`admin`: ADMIN_TOKEN); null for a version written directly to Redis or found changed there.',
        example: 'ci',
      }),
    }),
    { id: 'Version' },
  ),
)

const VersionWithValue = once(() =>
  described(
    z.object({
      version: z.int(),
      created_at: z.string(),
      message: z.nullable(z.string()),
      deleted: z.boolean(),
      by: z.nullable(z.string()),
      value: described(z.unknown(), { description: 'The record as that version stored it; null for a deletion.' }),
    }),
    { id: 'VersionWithValue' },
  ),
)

const VersionList = once(() => successOf('VersionList', z.array(Version())))
const VersionAnswer = once(() => successOf('VersionAnswer', VersionWithValue()))

/** The declaration of a kind's version list: `GET /api/{kind}/{id}/versions`. */
function listDeclaration(kind: RecordKind) {
  return () => ({
    tags: ['versions'],
    summary: `The versions kept of ${KIND_ROUTES[kind].named}, newest first`,
    description:
      "From the label's own record when the label has one, else the base's. A prompt contributed by an extension has its extension's versions.",
    request: { params: z.object({ [KIND_ROUTES[kind].param]: idOf(kind) }), query: ReadQuery() },
    responses: {
      200: json('Its versions', VersionList()),
      ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND', 'CONFLICT'),
    },
  })
}

/** The declaration of one version of a kind's record: `GET /api/{kind}/{id}/versions/{version}`. */
function oneDeclaration(kind: RecordKind) {
  return () => ({
    tags: ['versions'],
    summary: `One version of ${KIND_ROUTES[kind].named}, with the record it stored`,
    request: {
      params: z.object({
        [KIND_ROUTES[kind].param]: idOf(kind),
        version: described(versionNumber(), {
          description:
            'A version the list answers. The embedded store (`npm run dev`) keeps none: 404 VERSION_NOT_FOUND; `npm run dev:redis` publishes examples/ as version 1.',
          example: '1',
        }),
      }),
      query: ReadQuery(),
    },
    responses: {
      200: json('The version', VersionAnswer()),
      ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND', 'VERSION_NOT_FOUND', 'CONFLICT'),
    },
  })
}

function idOf(kind: RecordKind) {
  const singular = ID_KIND[kind]
  return idParam(singular, `The ${singular} id.`, KIND_ROUTES[kind].example)
}

/** The handler of a kind's version list. */
function listed(kind: RecordKind): Handler<AppEnv> {
  return async (c) => {
    const { layer, versions: kept } = await recordVersions(
      storeOf(c),
      kind,
      c.req.param(KIND_ROUTES[kind].param) as string,
    )
    if (layer.label !== undefined) c.header('X-Prompt-Label', layer.label)
    return success(c, kept)
  }
}

/** The handler of one version of a kind's record. */
function oneVersion(kind: RecordKind): Handler<AppEnv> {
  return async (c) => {
    const n = Number(c.req.param('version'))
    const id = c.req.param(KIND_ROUTES[kind].param) as string
    const { layer, version, value } = await recordVersion(storeOf(c), kind, id, n)
    for (const [name, text] of Object.entries(servedHeaders({ version: n, label: layer.label }))) c.header(name, text)
    const { text: _, ...entry } = version
    return success(c, { ...entry, value })
  }
}

/**
 * The history every write through the service keeps, of each kind of
 * record. Answers carry X-Prompt-Label() when the label's own record has them.
 */
export const versions = new Routes()
  .openapi(
    defineRoute('get', '/api/extensions/{extension_id}/versions', listDeclaration('extensions')),
    listed('extensions'),
  )
  .openapi(
    defineRoute('get', '/api/extensions/{extension_id}/versions/{version}', oneDeclaration('extensions')),
    oneVersion('extensions'),
  )
  .openapi(defineRoute('get', '/api/prompts/{prompt_id}/versions', listDeclaration('prompts')), listed('prompts'))
  .openapi(
    defineRoute('get', '/api/prompts/{prompt_id}/versions/{version}', oneDeclaration('prompts')),
    oneVersion('prompts'),
  )
  .openapi(defineRoute('get', '/api/environs/{environ_id}/versions', listDeclaration('environs')), listed('environs'))
  .openapi(
    defineRoute('get', '/api/environs/{environ_id}/versions/{version}', oneDeclaration('environs')),
    oneVersion('environs'),
  )
  .openapi(defineRoute('get', '/api/tools/{tool_id}/versions', listDeclaration('tools')), listed('tools'))
  .openapi(defineRoute('get', '/api/tools/{tool_id}/versions/{version}', oneDeclaration('tools')), oneVersion('tools'))
