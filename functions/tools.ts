import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi'
import { getTool, listTools } from '../lib/catalog'
import type { Tool } from '../lib/catalog'
import { API_ERRORS, errorsOf, json, recordSchema, storeOf, success, successOf } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { ReadQuery, idParam } from './shapes'

const ToolSummary = z
  .object({
    id: z.string().openapi({ description: 'The template function name.', example: 'codebase_lookup_ref' }),
    name: z.string(),
    module: z.string(),
    type: z.string().openapi({ example: 'restful' }),
    description: z.string(),
    supports: z.array(z.string()),
  })
  .openapi('ToolSummary')

const list = createRoute({
  method: 'get',
  path: '/',
  tags: ['tools'],
  summary: 'The tools templates can call',
  request: { query: ReadQuery },
  responses: {
    200: json('Every tool, by function name', successOf('ToolList', z.array(ToolSummary))),
    ...errorsOf(...API_ERRORS),
  },
})

const one = createRoute({
  method: 'get',
  path: '/{tool_id}',
  tags: ['tools'],
  summary: 'One tool, as published',
  request: {
    params: z.object({ tool_id: idParam('tool', 'The template function name.', 'codebase_lookup_ref') }),
    query: ReadQuery,
  },
  responses: {
    200: json('The tool record', successOf('ToolAnswer', recordSchema('Tool'))),
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND'),
  },
})

/** GET /api/tools and GET /api/tools/{tool_id} (the template function name). */
export const tools = new OpenAPIHono<AppEnv>()
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
