import { Hono } from 'hono'
import { getEnviron, listEnvironPaths } from '../lib/catalog'
import { success } from '../lib/http'
import type { AppEnv } from '../lib/http'

/** GET /api/environs and GET /api/environs/{environ_id} (a path such as `vscode.frameworks`, or a prefix of paths). */
export const environs = new Hono<AppEnv>()
  .get('/', async (c) => success(c, await listEnvironPaths(c.var.store)))
  .get('/:environ_id', async (c) => {
    const { value, skipped } = await getEnviron(c.var.store, c.req.param('environ_id'))
    return success(c, value, skipped)
  })
