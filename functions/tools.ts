import { Hono } from 'hono'
import { getTool, listTools } from '../lib/catalog'
import type { Tool } from '../lib/catalog'
import { storeOf, success } from '../lib/http'
import type { AppEnv } from '../lib/http'

/** GET /api/tools and GET /api/tools/{tool_id} (the template function name). */
export const tools = new Hono<AppEnv>()
  .get('/', async (c) => {
    const { items, skipped } = await listTools(storeOf(c))
    return success(c, items.map(summary), skipped)
  })
  .get('/:tool_id', async (c) => {
    const tool = await getTool(storeOf(c), c.req.param('tool_id'))
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
