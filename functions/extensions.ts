import { Hono } from 'hono'
import { getExtension, listExtensions } from '../lib/catalog'
import type { Extension } from '../lib/catalog'
import { storeOf, success } from '../lib/http'
import type { AppEnv } from '../lib/http'

/** GET /api/extensions and GET /api/extensions/{extension_id}. */
export const extensions = new Hono<AppEnv>()
  .get('/', async (c) => {
    const { items, skipped } = await listExtensions(storeOf(c))
    return success(c, items.map(summary), skipped)
  })
  .get('/:extension_id', async (c) => {
    const extension = await getExtension(storeOf(c), c.req.param('extension_id'))
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
