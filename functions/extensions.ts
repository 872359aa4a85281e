import * as z from 'zod/mini'
import { getExtension, listExtensions } from '../lib/catalog'
import type { Extension } from '../lib/catalog'
import {
  API_ERRORS,
  errorsOf,
  json,
  recordSchema,
  storeOf,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
} from '../lib/http'
import { ReadQuery, idParam } from './shapes'

const ExtensionSummary = once(() =>
  described(
    z.object({
      id: described(z.string(), { example: 'evaluator' }),
      publisher: z.nullable(z.string()),
      displayName: z.nullable(z.string()),
      description: z.nullable(z.string()),
      version: z.string(),
      prompts: described(z.array(z.string()), {
        description: 'The ids of its prompts.',
        example: ['evaluator.evaluate_quality'],
      }),
    }),
    { id: 'ExtensionSummary' },
  ),
)

const list = defineRoute('get', '/api/extensions', () => ({
  tags: ['extensions'],
  summary: 'The prompt extensions',
  request: { query: ReadQuery() },
  responses: {
    200: json('Every prompt extension, by id', successOf('ExtensionList', z.array(ExtensionSummary()))),
    ...errorsOf(...API_ERRORS),
  },
}))

const one = defineRoute('get', '/api/extensions/{extension_id}', () => ({
  tags: ['extensions'],
  summary: 'One prompt extension, as published',
  request: {
    params: z.object({ extension_id: idParam('extension', 'The extension key, `:` written as `.`.', 'evaluator') }),
    query: ReadQuery(),
  },
  responses: {
    200: json('The extension record', successOf('ExtensionAnswer', recordSchema('Extension'))),
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND'),
  },
}))

/** GET /api/extensions and GET /api/extensions/{extension_id}. */
export const extensions = new Routes()
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
