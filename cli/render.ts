import type { Message } from '../lib/catalog'
import { DONE, FAILED, misused } from './io'
import type { Io, Options } from './io'
import { checkLabels } from './labels'
import { renderFiles } from './render-files'
import { explainedLines, renderedResult } from './rendered'
import type { Explained, RenderResult, TimingReport } from './rendered'
import { describeError } from '../lib/log'

/**
 * `render <prompt_id> [--args JSON] [--label NAME] [--version N] [--explain]`:
 * through a running service (`--url`, `--token`), or, with `--file`, from
 * record files with no server (render-files.ts).
 */
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
  if (values.version !== undefined && !/^[1-9][0-9]{0,8}$/.test(values.version)) {
    return misused(
      io,
      'render',
      `render: --version '${values.version.slice(0, 20)}' is not a version (a number, 1 or more; see 'versions')`,
    )
  }
  const misuse = checkLabels('render', { label: values.label }, io)
  if (misuse !== undefined) return misuse
  const explain = values.explain === true
  let result: RenderResult
  if (values.file !== undefined) {
    const remote = (['url', 'token', 'label', 'version'] as const).find((name) => values[name] !== undefined)
    if (remote !== undefined) {
      return misused(io, 'render', `render: --file renders from files, with no server: --${remote} is a server's`)
    }
    result = await renderFiles(values.file, id, args, explain, io)
  } else {
    const base = values.url ?? io.env.AI_PROMPT_SHELL_URL ?? 'http://127.0.0.1:8787'
    const query = { label: values.label, version: values.version, explain: explain ? 'true' : undefined }
    try {
      result = await renderRemote(base, id, args, query, values.token ?? io.env.API_TOKEN)
    } catch (e) {
      io.err(`render: cannot reach ${base}: ${describeError(e)}`)
      return FAILED
    }
  }
  for (const warning of result.warnings) io.err(`warning: ${warning}`)
  ;(result.ok ? io.out : io.err)(result.text)
  if (result.explained) for (const line of explainedLines(result.explained)) io.err(line)
  return result.ok ? DONE : FAILED
}

interface Answer {
  status?: string
  code?: string
  message?: string
  rendered_prompt?: string | Message[]
  warnings?: { code: string; message: string }[]
  analysis?: Explained['analysis']
  timing?: TimingReport
}

/** POSTs to /api/prompts/{id}/render of a running service, with `query` (label, version, explain) where set. */
export async function renderRemote(
  base: string,
  id: string,
  args: unknown,
  query: Record<string, string | undefined>,
  token?: string,
): Promise<RenderResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token) headers.authorization = `Bearer ${token}`
  const url = new URL(`api/prompts/${encodeURIComponent(id)}/render`, base.endsWith('/') ? base : `${base}/`)
  for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value)
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
  const { analysis, timing } = answer
  const version = res.headers.get('x-prompt-version')
  const label = res.headers.get('x-prompt-label')
  const which = version === null || version === 'unversioned' ? 'unversioned' : `version ${version}`
  const served = `${which}${label ? ` of label ${label}` : ''}, rendered by ${url.origin}`
  return renderedResult(
    answer.rendered_prompt ?? '',
    answer.warnings ?? [],
    analysis && timing ? { served, analysis, timing } : undefined,
  )
}
