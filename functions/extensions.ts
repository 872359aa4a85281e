import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi'
import { getExtension, listExtensions } from '../lib/catalog'
import type { Extension } from '../lib/catalog'
import { API_ERRORS, errorsOf, json, recordSchema, storeOf, success, successOf } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { ReadQuery, idParam } from './shapes'

const ExtensionSummary = z
  .object({
    id: z.string().openapi({ example: 'evaluator' }),
    publisher: z.string().nullable(),
    displayName: z.string().nullable(),
    description: z.string().nullable(),
    version: z.string(),
    prompts: z
      .array(z.string())
      .openapi({ description: 'The ids of its prompts.', example: ['evaluator.evaluate_quality'] }),
  })
  .openapi('ExtensionSummary')

const list = createRoute({
  method: 'get',
  path: '/',
  tags: ['extensions'],
  summary: 'The prompt extensions',
  request: { query: ReadQuery },
  responses: {
    200: json('Every prompt extension, by id', successOf('ExtensionList', z.array(ExtensionSummary))),
    ...errorsOf(...API_ERRORS),
  },
})

const one = createRoute({
  method: 'get',
  path: '/{extension_id}',
  tags: ['extensions'],
  summary: 'One prompt extension, as published',
  request: {
    params: z.object({ extension_id: idParam('extension', 'The extension key, `:` written as `.`.', 'evaluator') }),
    query: ReadQuery,
  },
  responses: {
    200: json('The extension record', successOf('ExtensionAnswer', recordSchema('Extension'))),
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND'),
  },
})

/** GET /api/extensions and GET /api/extensions/{extension_id}. */
export const extensions = new OpenAPIHono<AppEnv>()
  .openapi(list, async (c) => {
    const { items, skipped } = await listExtensions(storeOf(c))
    return success(c, items.map(summary), skipped)
  })
  .openapi(one, async (c) => {
    const extension = await getExtension(storeOf(c), c.req.valid('param').extension_id)
    return success(c, extension.record)
  })

function summary({ id, record }: Extension) {
  return {
    id,
    publisher: record.publisher ?? null,
    displayName: record.displayName ?? null,
    description: record.description ?? null,
    version: record.version,
    // A repeated prompt name is served once (the catalogue skips the repeat).
    prompts: [...new Set((record.contributes.prompts ?? []).map((p) => `${id}.${p.name}`))],
  }
}
