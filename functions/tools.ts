import * as z from 'zod/mini'
import { getTool, listTools } from '../lib/catalog'
import type { Tool } from '../lib/catalog'
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

const list = defineRoute('get', '/api/tools', () => ({
  tags: ['tools'],
  summary: 'The tools templates can call',
  request: { query: ReadQuery() },
  responses: {
    200: json('Every tool, by function name', successOf('ToolList', z.array(ToolSummary()))),
    ...errorsOf(...API_ERRORS),
  },
}))

const one = defineRoute('get', '/api/tools/{tool_id}', () => ({
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

/** GET /api/tools and GET /api/tools/{tool_id} (the template function name). */
export const tools = new Routes()
  .openapi(list, async (c) => {
    const { items, skipped } = await listTools(storeOf(c))
    return success(c, items.map(summary), skipped)
  })
  .openapi(one, async (c) => {
    const tool = await getTool(storeOf(c), c.req.valid('param').tool_id)
    return success(c, tool.record)
  })

function summary({ id, record }: Tool) {
  return {
    id,
    name: record.name,
    module: record.module,
    type: record.type,
    description: record.description,
    supports: record.supports ?? [],
  }
}
