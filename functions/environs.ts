import * as z from 'zod/mini'
import { getEnviron, listEnvironPaths } from '../lib/catalog'
import {
  API_ERRORS,
  errorsOf,
  json,
  pageOf,
  paged,
  settingsOf,
  storeOf,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
} from '../lib/http'
import { ListQuery, ReadQuery, idParam, pageAsked } from './shapes'

const list = defineRoute('get', '/api/environs', () => ({
  tags: ['environs'],
  summary: 'The paths of the shared variables',
  request: { query: ListQuery() },
  responses: {
    200: json(
      'A page of the variable paths, by key',
      pageOf('EnvironList', described(z.array(z.string()), { example: ['vscode.frameworks', 'vscode.rules'] })),
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
    const { items, skipped, next } = await listEnvironPaths(storeOf(c), pageAsked(c.req.valid('query')))
    return paged(c, items, skipped, next)
  })
  .openapi(one, async (c) => {
    const { value, skipped } = await getEnviron(
      storeOf(c),
      c.req.valid('param').environ_id,
      settingsOf(c).environMaxBytes,
    )
    return success(c, value, skipped)
  })
