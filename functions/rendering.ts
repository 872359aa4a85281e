import type { Context } from 'hono'
import { freshStoreOf, renderOptionsOf } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { requestLog } from '../lib/log'
import { draftOver, getServedPrompt, promptAt } from '../lib/catalog'
import type { JsonObject } from '../lib/json'
import { analysisReport, renderDraft, renderPrompt, variablesSeen } from '../lib/render'
import type { Args, Rendered, RenderOptions } from '../lib/render'
import { servedHeaders } from './shapes'

/**
 * The render options of a caller's render of a stored prompt: the
 * settings', and the request's headers for a rollout's sticky
 * `header:<name>` (lib/rollout). /render, /chat, /v1 and MCP's prompts/get
 * all serve a prompt's rollout; a prompt test renders the version it names,
 * or the newest.
 */
export function servingOptionsOf(c: Context<AppEnv>): RenderOptions {
  return { ...renderOptionsOf(c), rollout: { header: (name) => c.req.header(name) } }
}

/** What a request asks of a render besides its args. */
export interface Asked {
  /** Failures carry the templates' analysis (RenderOptions.explain). */
  explain?: boolean | undefined
  /** Laid over the shared variables for this render only. */
  variables?: JsonObject | undefined
  /** Fields replacing the stored record's (draftOver): the draft renders, not the record. */
  draft?: Record<string, unknown> | undefined
}

/**
 * A prompt rendered for a route, /render or /chat: the same store, options
 * and log fields for both, so that a chat fails exactly as its render would.
 * `?version=N` renders that version of the prompt's record; without it, a
 * rollout of the prompt picks one. The answer's headers say which version
 * was rendered, and from which label; a draft of it (`asked.draft`, over
 * that version or the newest) renders as POST /api/render does, and has no
 * version.
 */
export async function renderRequested(
  c: Context<AppEnv>,
  id: string,
  args: Args,
  asked: Asked = {},
): Promise<Rendered> {
  requestLog()?.set('prompt_id', id)
  const query = c.req.query('version')
  const version = query === undefined ? undefined : Number(query)
  const overlay = asked.variables === undefined ? undefined : { variables: asked.variables }
  const options = { ...servingOptionsOf(c), version, explain: asked.explain, overlay }
  const store = await freshStoreOf(c)
  const { draft } = asked
  let rendered: Rendered
  if (draft === undefined) rendered = await renderPrompt(store, id, args, options)
  else {
    const { prompt } = await (version === undefined ? getServedPrompt(store, id) : promptAt(store, id, version))
    rendered = await renderDraft(store, draftOver(prompt.record, draft), args, options)
  }
  requestLog()?.set('prompt_version', rendered.served?.version ?? null)
  for (const [name, value] of Object.entries(servedHeaders(rendered.served))) c.header(name, value)
  requestLog()?.debug({ args, rendered_prompt: rendered.prompt })
  return rendered
}

/**
 * A render's answer, and its Server-Timing header. Explained, it also says
 * what the templates read and call (their static analysis), the shared
 * variables they read as the render saw them, and where the time went, tool
 * call by tool call.
 */
export function renderAnswer(c: Context<AppEnv>, rendered: Rendered, explain: boolean) {
  c.header('Server-Timing', rendered.timing.header())
  const warnings = rendered.warnings.length > 0 ? { warnings: rendered.warnings } : {}
  const answer = { status: 'success' as const, rendered_prompt: rendered.prompt, ...warnings }
  if (!explain) return answer
  const analysis = analysisReport(rendered.analysis, rendered.tools)
  const variables = variablesSeen(rendered.seen, rendered.analysis.paths)
  return { ...answer, analysis, variables, timing: rendered.timing.report() }
}
