import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi'
import { ID_KIND, RECORD_KINDS, recordVersion, recordVersions } from '../lib/catalog'
import type { RecordKind } from '../lib/catalog'
import { API_ERRORS, errorsOf, json, storeOf, success, successOf } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { ReadQuery, idParam, servedHeaders } from './shapes'
import { KIND_ROUTES } from './writes'

const Version = z
  .object({
    version: z.number().int().openapi({ example: 3 }),
    created_at: z.string().openapi({ example: '2026-11-24T10:00:00.000Z' }),
    message: z.string().nullable(),
    deleted: z
      .boolean()
      .openapi({ description: 'The version is the deletion of the record (under a label: its hiding).' }),
  })
  .openapi('Version')

const VersionWithValue = z
  .object({
    version: z.number().int(),
    created_at: z.string(),
    message: z.string().nullable(),
    deleted: z.boolean(),
    value: z.unknown().openapi({ description: 'The record as that version stored it; null for a deletion.' }),
  })
  .openapi('VersionWithValue')

/** The version routes of one kind. */
function versionRoutes(kind: RecordKind) {
  const { param, example } = KIND_ROUTES[kind]
  const singular = ID_KIND[kind]
  const id = idParam(singular, `The ${singular} id.`, example)
  const list = createRoute({
    method: 'get',
    path: `/${kind}/{${param}}/versions`,
    tags: ['versions'],
    summary: `The versions kept of a ${singular}, newest first`,
    description:
      "From the label's own record when the label has one, else the base's. A prompt contributed by an extension has its extension's versions.",
    request: { params: z.object({ [param]: id }), query: ReadQuery },
    responses: {
      200: json('Its versions', successOf('VersionList', z.array(Version))),
      ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND', 'CONFLICT'),
    },
  })
  const one = createRoute({
    method: 'get',
    path: `/${kind}/{${param}}/versions/{version}`,
    tags: ['versions'],
    summary: `One version of a ${singular}, with the record it stored`,
    request: {
      params: z.object({
        [param]: id,
        version: z
          .string()
          .regex(/^[1-9][0-9]{0,8}$/, 'must be a version number, 1 or more')
          .openapi({ example: '1' }),
      }),
      query: ReadQuery,
    },
    responses: {
      200: json('The version', successOf('VersionAnswer', VersionWithValue)),
      ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND', 'VERSION_NOT_FOUND', 'CONFLICT'),
    },
  })
  return { list, one, param }
}

/**
 * GET /api/{extensions|prompts|environs|tools}/{id}/versions and
 * .../versions/{version}: the history every write through the service keeps.
 * Answers carry X-Prompt-Label when the label's own record has them.
 */
export const versions = new OpenAPIHono<AppEnv>()

for (const kind of RECORD_KINDS) {
  const { list, one, param } = versionRoutes(kind)
  versions.openapi(list, async (c) => {
    const id = (c.req.valid('param') as Record<string, string>)[param] as string
    const { layer, versions: kept } = await recordVersions(storeOf(c), kind, id)
    if (layer.label !== undefined) c.header('X-Prompt-Label', layer.label)
    return success(c, kept)
  })
  versions.openapi(one, async (c) => {
    const params = c.req.valid('param') as Record<string, string>
    const n = Number(params.version)
    const { layer, version, value } = await recordVersion(storeOf(c), kind, params[param] as string, n)
    for (const [name, text] of Object.entries(servedHeaders({ version: n, label: layer.label }))) c.header(name, text)
    const { text: _, ...entry } = version
    return success(c, { ...entry, value })
  })
}
