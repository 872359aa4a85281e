import type { Message } from '../lib/catalog'

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
