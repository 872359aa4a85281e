import type { Context } from 'hono'
import { freshStoreOf, renderOptionsOf } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { requestLog } from '../lib/log'
import { renderPrompt } from '../lib/render'
import type { Args, Rendered } from '../lib/render'
import { servedHeaders } from './shapes'

/**
 * A prompt rendered for a route, /render or /chat: the same store, options
 * and log fields for both, so that a chat fails exactly as its render would.
 * `?version=N` renders that version of the prompt's record; the answer's
 * headers say which version was rendered, and from which label.
 */
export async function renderRequested(c: Context<AppEnv>, id: string, args: Args): Promise<Rendered> {
  requestLog()?.set('prompt_id', id)
  const version = c.req.query('version')
  const options = {
    ...renderOptionsOf(c),
    version: version === undefined ? undefined : Number(version),
  }
  const rendered = await renderPrompt(await freshStoreOf(c), id, args, options)
  requestLog()?.set('prompt_version', rendered.served?.version ?? null)
  for (const [name, value] of Object.entries(servedHeaders(rendered.served))) c.header(name, value)
  requestLog()?.debug({ args, rendered_prompt: rendered.prompt })
  return rendered
}

/**
 * A render's answer, and its Server-Timing header. Explained, it also says
 * what the templates read and call (their static analysis) and where the
 * time went, tool call by tool call.
 */
export function renderAnswer(c: Context<AppEnv>, rendered: Rendered, explain: boolean) {
  c.header('Server-Timing', rendered.timing.header())
  const warnings = rendered.warnings.length > 0 ? { warnings: rendered.warnings } : {}
  const answer = { status: 'success' as const, rendered_prompt: rendered.prompt, ...warnings }
  if (!explain) return answer
  const { paths, functions } = rendered.analysis
  const analysis = {
    reads: paths.map((p) => (p.length === 0 ? '.' : p.join('.'))),
    tools: rendered.tools,
    functions: [...functions],
  }
  return { ...answer, analysis, timing: rendered.timing.report() }
}
