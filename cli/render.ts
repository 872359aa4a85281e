import type { Message } from '../lib/catalog'
import { DONE, FAILED, misused } from './io'
import type { Io, Options } from './io'
import { describeError } from '../lib/log'

/** `render <prompt_id> [--args JSON] [--url URL] [--token TOKEN]`: renders through a running service. */
export async function renderCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  const [id, ...extra] = operands
  if (id === undefined || extra.length > 0) {
    return misused(
      io,
      'render',
      'render: name one prompt id, e.g. render evaluator.quick_review --args \'{"code": "..."}\'',
    )
  }
  let args: unknown = {}
  try {
    if (values.args !== undefined) args = JSON.parse(values.args)
  } catch (e) {
    return misused(io, 'render', `render: --args is not valid JSON: ${describeError(e)}`)
  }
  const base = values.url ?? io.env.AI_PROMPT_SHELL_URL ?? 'http://127.0.0.1:8787'
  try {
    const result = await renderRemote(base, id, args, values.token ?? io.env.API_TOKEN)
    for (const warning of result.warnings) io.err(`warning: ${warning}`)
    ;(result.ok ? io.out : io.err)(result.text)
    return result.ok ? DONE : FAILED
  } catch (e) {
    io.err(`render: cannot reach ${base}: ${describeError(e)}`)
    return FAILED
  }
}

/** What `render` prints: the rendered prompt, or the service's error. */
export interface RenderResult {
  ok: boolean
  /** The rendered prompt (a `[role]` block per message), or `CODE: message`. */
  text: string
  warnings: string[]
}

interface Answer {
  status?: string
  code?: string
  message?: string
  rendered_prompt?: string | Message[]
  warnings?: { code: string; message: string }[]
}

/** POSTs to /api/prompts/{id}/render of a running service. */
export async function renderRemote(base: string, id: string, args: unknown, token?: string): Promise<RenderResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const url = new URL(`api/prompts/${encodeURIComponent(id)}/render`, base.endsWith('/') ? base : `${base}/`)
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ args }) })
  const text = await res.text()
  let answer: Answer
  try {
    answer = JSON.parse(text) as Answer
  } catch {
    return {
      ok: false,
      text: `${url} answered ${res.status} with something that is not JSON: ${text.slice(0, 200)}`,
      warnings: [],
    }
  }
  if (!res.ok || answer.status !== 'success') {
    return { ok: false, text: `${answer.code ?? res.status}: ${answer.message ?? text}`, warnings: [] }
  }
  const prompt = answer.rendered_prompt ?? ''
  return {
    ok: true,
    text: typeof prompt === 'string' ? prompt : prompt.map((m) => `[${m.role}]\n${m.content}`).join('\n\n'),
    warnings: (answer.warnings ?? []).map((w) => `${w.code}: ${w.message}`),
  }
}
