import * as z from 'zod/mini'
import { getExtension, getTool, listExtensions, listTools } from '../lib/catalog'
import type { Extension, Tool } from '../lib/catalog'
import {
  API_ERRORS,
  errorsOf,
  json,
  pageOf,
  paged,
  recordSchema,
  storeOf,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
} from '../lib/http'
import { ListQuery, ReadQuery, idParam, pageAsked } from './shapes'

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

const ToolSummary = once(() =>
  described(
    z.object({
      id: described(z.string(), { description: 'The template function name.', example: 'codebase_lookup_ref' }),
      name: z.string(),
      module: z.string(),
      type: described(z.string(), { example: 'restful' }),
      description: z.string(),
      supports: z.array(z.string()),
    }),
    { id: 'ToolSummary' },
  ),
)

const extensionList = defineRoute('get', '/api/extensions', () => ({
  tags: ['extensions'],
  summary: 'The prompt extensions',
  request: { query: ListQuery() },
  responses: {
    200: json('A page of the prompt extensions, by key', pageOf('ExtensionList', z.array(ExtensionSummary()))),
    ...errorsOf(...API_ERRORS),
  },
}))

const extension = defineRoute('get', '/api/extensions/{extension_id}', () => ({
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

const toolList = defineRoute('get', '/api/tools', () => ({
  tags: ['tools'],
  summary: 'The tools templates can call',
  request: { query: ListQuery() },
  responses: {
    200: json('A page of the tools, by key', pageOf('ToolList', z.array(ToolSummary()))),
    ...errorsOf(...API_ERRORS),
  },
}))

const tool = defineRoute('get', '/api/tools/{tool_id}', () => ({
  tags: ['tools'],
  summary: 'One tool, as published',
  request: {
    params: z.object({ tool_id: idParam('tool', 'The template function name.', 'codebase_lookup_ref') }),
    query: ReadQuery(),
  },
  responses: {
    200: json('The tool record', successOf('ToolAnswer', recordSchema('Tool'))),
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND'),
  },
}))

/**
 * The published records read as they are: GET /api/extensions and
 * /api/extensions/{extension_id}, GET /api/tools and /api/tools/{tool_id}
 * (the template function name). A list answers a page of the records'
 * summaries (?limit, ?cursor: lib/catalog/paging.ts).
 */
export const published = new Routes()
  .openapi(extensionList, async (c) => {
    const { items, skipped, next } = await listExtensions(storeOf(c), pageAsked(c.req.valid('query')))
    return paged(c, items.map(extensionSummary), skipped, next)
  })
  .openapi(extension, async (c) => {
    const { record } = await getExtension(storeOf(c), c.req.valid('param').extension_id)
    return success(c, record)
  })
  .openapi(toolList, async (c) => {
    const { items, skipped, next } = await listTools(storeOf(c), pageAsked(c.req.valid('query')))
    return paged(c, items.map(toolSummary), skipped, next)
  })
  .openapi(tool, async (c) => {
    const { record } = await getTool(storeOf(c), c.req.valid('param').tool_id)
    return success(c, record)
  })

function extensionSummary({ id, record }: Extension) {
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

function toolSummary({ id, record }: Tool) {
  return {
    id,
    name: record.name,
    module: record.module,
    type: record.type,
    description: record.description,
    supports: record.supports ?? [],
  }
}
