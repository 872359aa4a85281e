import * as z from 'zod/mini'
import { getEnviron, listEnvironPaths } from '../lib/catalog'
import {
  API_ERRORS,
  errorsOf,
  json,
  settingsOf,
  storeOf,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
} from '../lib/http'
import { ReadQuery, idParam } from './shapes'

const list = defineRoute('get', '/api/environs', () => ({
  tags: ['environs'],
  summary: 'The paths of the shared variables',
  request: { query: ReadQuery() },
  responses: {
    200: json(
      'Every variable path, sorted',
      successOf('EnvironList', described(z.array(z.string()), { example: ['vscode.frameworks', 'vscode.rules'] })),
    ),
    ...errorsOf(...API_ERRORS),
  },
}))

const one = defineRoute('get', '/api/environs/{environ_id}', () => ({
  tags: ['environs'],
  summary: 'One shared variable, or every variable under a path prefix as one object',
  request: {
    params: z.object({
      environ_id: idParam('environ', 'A variable path, or a prefix of paths.', 'vscode.frameworks'),
    }),
    query: ReadQuery(),
  },
  responses: {
    200: json('Its value: any JSON', successOf('EnvironAnswer', z.unknown())),
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND', 'LIMIT_EXCEEDED'),
  },
}))

/** GET /api/environs and GET /api/environs/{environ_id} (a path such as `vscode.frameworks`, or a prefix of paths). */
export const environs = new Routes()
  .openapi(list, async (c) => {
    const { items, skipped } = await listEnvironPaths(storeOf(c))
    return success(c, items, skipped)
  })
  .openapi(one, async (c) => {
    const { value, skipped } = await getEnviron(
      storeOf(c),
      c.req.valid('param').environ_id,
      settingsOf(c).environMaxBytes,
    )
    return success(c, value, skipped)
  })
