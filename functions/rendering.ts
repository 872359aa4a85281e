import type { Context } from 'hono'
import { freshStoreOf } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { requestLog } from '../lib/log'
import { renderOptionsFrom, renderPrompt } from '../lib/render'
import type { Args, Rendered } from '../lib/render'

/**
 * A prompt rendered for a route, /render or /chat: the same store, options
 * and log fields for both, so that a chat fails exactly as its render would.
 */
export async function renderRequested(c: Context<AppEnv>, id: string, args: Args): Promise<Rendered> {
  requestLog()?.set('prompt_id', id)
  const rendered = await renderPrompt(await freshStoreOf(c), id, args, renderOptionsFrom(c.env))
  requestLog()?.debug({ args, rendered_prompt: rendered.prompt })
  return rendered
}
