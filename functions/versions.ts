import * as z from 'zod/mini'
import { ID_KIND, RECORD_KINDS, recordVersion, recordVersions } from '../lib/catalog'
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
      value: described(z.unknown(), { description: 'The record as that version stored it; null for a deletion.' }),
    }),
    { id: 'VersionWithValue' },
  ),
)

const VersionList = once(() => successOf('VersionList', z.array(Version())))
const VersionAnswer = once(() => successOf('VersionAnswer', VersionWithValue()))

/** The version routes of one kind. */
function versionRoutes(kind: RecordKind) {
  const { param, example } = KIND_ROUTES[kind]
  const singular = ID_KIND[kind]
  const id = once(() => idParam(singular, `The ${singular} id.`, example))
  const list = defineRoute('get', `/${kind}/{${param}}/versions`, () => ({
    tags: ['versions'],
    summary: `The versions kept of a ${singular}, newest first`,
    description:
      "From the label's own record when the label has one, else the base's. A prompt contributed by an extension has its extension's versions.",
    request: { params: z.object({ [param]: id() }), query: ReadQuery() },
    responses: {
      200: json('Its versions', VersionList()),
      ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND', 'CONFLICT'),
    },
  }))
  const one = defineRoute('get', `/${kind}/{${param}}/versions/{version}`, () => ({
    tags: ['versions'],
    summary: `One version of a ${singular}, with the record it stored`,
    request: {
      params: z.object({
        [param]: id(),
        version: described(versionNumber(), { example: '1' }),
      }),
      query: ReadQuery(),
    },
    responses: {
      200: json('The version', VersionAnswer()),
      ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND', 'VERSION_NOT_FOUND', 'CONFLICT'),
    },
  }))
  return { list, one, param }
}

/**
 * GET /api/{extensions|prompts|environs|tools}/{id}/versions and
 * .../versions/{version}: the history every write through the service keeps.
 * Answers carry X-Prompt-Label() when the label's own record has them.
 */
export const versions = new Routes()

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
