import { Hono } from 'hono'
import { getEnviron, listEnvironPaths } from '../lib/catalog'
import { storeOf, success } from '../lib/http'
import type { AppEnv } from '../lib/http'

/** GET /api/environs and GET /api/environs/{environ_id} (a path such as `vscode.frameworks`, or a prefix of paths). */
export const environs = new Hono<AppEnv>()
  .get('/', async (c) => {
    const { items, skipped } = await listEnvironPaths(storeOf(c))
    return success(c, items, skipped)
  })
  .get('/:environ_id', async (c) => {
    const { value, skipped } = await getEnviron(storeOf(c), c.req.param('environ_id'))
    return success(c, value, skipped)
  })
