import { Hono } from 'hono'
import { z } from 'zod'
import { getPrompt, listPrompts, normalizeParameters, promptKind } from '../lib/catalog'
import type { Prompt } from '../lib/catalog'
import { freshStoreOf, jsonBody, storeOf, success } from '../lib/http'
import { renderOptionsFrom, renderPrompt } from '../lib/render'
import type { AppEnv } from '../lib/http'

/**
 * GET /api/prompts (filters: `?supports=chat`, repeatable or comma-separated,
 * all of which a prompt must support; `?extension=X`, ids starting `X.`) and
 * GET /api/prompts/{prompt_id}.
 */
export const prompts = new Hono<AppEnv>()
  .get('/', async (c) => {
    const supports =
      c.req
        .queries('supports')
        ?.flatMap((s) => s.split(','))
        .filter(Boolean) ?? []
    const extension = c.req.query('extension')
    const { items, skipped } = await listPrompts(storeOf(c))
    const chosen = items.filter(
      (p) =>
        (extension === undefined || p.id.startsWith(`${extension}.`)) &&
        supports.every((s) => p.record.supports?.includes(s)),
    )
    return success(c, chosen.map(summary), skipped)
  })
  .get('/:prompt_id', async (c) => {
    const prompt = await getPrompt(storeOf(c), c.req.param('prompt_id'))
    return success(c, detail(prompt))
  })
  .post('/:prompt_id/render', async (c) => {
    const { args } = await jsonBody(c, RenderBody)
    const rendered = await renderPrompt(
      await freshStoreOf(c),
      c.req.param('prompt_id'),
      args ?? {},
      renderOptionsFrom(c.env),
    )
    c.header('Server-Timing', rendered.timing.header())
    const warnings = rendered.warnings.length > 0 ? { warnings: rendered.warnings } : {}
    return c.json({ status: 'success', rendered_prompt: rendered.prompt, ...warnings })
  })

/** POST /render: `{"args": {...}}`, args optional. */
const RenderBody = z.object({ args: z.record(z.string(), z.unknown()).optional() })

function summary(prompt: Prompt) {
  return {
    id: prompt.id,
    origin: prompt.origin,
    kind: promptKind(prompt),
    // A prompt without its own description is described by its extension.
    description: prompt.record.description ?? prompt.extension?.record.description ?? null,
    supports: prompt.record.supports ?? [],
  }
}

function detail(prompt: Prompt) {
  const { record } = prompt
  const template = record.messages === undefined ? { prompt: record.prompt } : { messages: record.messages }
  return {
    ...summary(prompt),
    ...template,
    parameters: normalizeParameters(record.parameters),
    returns: record.returns ?? null,
  }
}
