/**
 * What the hostile benches share (bench/hostile.ts, issue 12's rows;
 * bench/hostile-2.ts, issue 27's): the Worker's settings the tables were
 * measured with, the bounds a row must answer within, and the plumbing of
 * sending a request and reading the Worker's log line for it.
 */

export const DEADLINE_MS = 500
export const TOOL_TIMEOUT_MS = 300
/** What every row must answer within: the render's deadline, and 200 ms for everything around it. */
export const BOUND_MS = DEADLINE_MS + 200
/** How long a row's request, and then its log line, may take before the row is failed for it rather than measured. */
export const REQUEST_WAIT_MS = 30_000
const LINE_WAIT_MS = 10_000
/** The ordinary render every row is compared with: the example prompt, which reads two environs. */
export const ORDINARY = { path: '/api/prompts/evaluator.quick_review/render', body: { args: { code: 'x := 1' } } }

/**
 * The most of one answer the bench reads: a hostile input may make the Worker
 * answer without end, and the bench must outlive it to report it.
 */
export const ANSWER_READ_LIMIT_BYTES = 32 * 1024 * 1024

/** An answer's body, read up to ANSWER_READ_LIMIT_BYTES; `cut` when there was more (the rest is not read). */
export async function readBounded(response: Response): Promise<{ text: string; bytes: number; cut: boolean }> {
  const chunks: Uint8Array[] = []
  let bytes = 0
  const reader = response.body?.getReader()
  for (;;) {
    const read = await reader?.read()
    if (!read || read.done) return { text: Buffer.concat(chunks).toString('utf8'), bytes, cut: false }
    chunks.push(read.value)
    bytes += read.value.byteLength
    if (bytes > ANSWER_READ_LIMIT_BYTES) {
      await reader?.cancel()
      return { text: Buffer.concat(chunks).toString('utf8'), bytes, cut: true }
    }
  }
}

export function post(base: string, path: string, body: unknown, headers: Headers): Promise<Response> {
  headers.set('content-type', 'application/json')
  return fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })
}

export function codeOf(text: string): string | null {
  try {
    const code = (JSON.parse(text) as { code?: unknown }).code
    return typeof code === 'string' ? code : null
  } catch {
    return null
  }
}

/** What the Worker's request log line for one request says. */
interface LineFacts {
  bytes: number
  status: number
  code: string | null
  durationMs: number
}

/**
 * The Worker's request log lines, by request id, as wrangler relays them. A
 * request's line is written as it answers, and reaches this process through
 * wrangler's output a little later: `of` waits for it, an event, rather than
 * for a time.
 */
export class RequestLines {
  readonly #seen = new Map<string, LineFacts>()
  readonly #waiting = new Map<string, () => void>()

  readonly see = (line: string): void => {
    const json = line.indexOf('{')
    if (json === -1 || !line.includes('"msg":"request"')) return
    let fields: { request_id?: unknown; status?: unknown; duration_ms?: unknown; error?: { code?: unknown } }
    try {
      fields = JSON.parse(line.slice(json)) as typeof fields
    } catch {
      return
    }
    if (typeof fields.request_id !== 'string' || typeof fields.status !== 'number') return
    const code = typeof fields.error?.code === 'string' ? fields.error.code : null
    const durationMs = typeof fields.duration_ms === 'number' ? fields.duration_ms : 0
    this.#seen.set(fields.request_id, { bytes: Buffer.byteLength(line), status: fields.status, code, durationMs })
    this.#waiting.get(fields.request_id)?.()
  }

  /** The request's line, once it came; undefined if it did not come within LINE_WAIT_MS. */
  async of(id: string): Promise<LineFacts | undefined> {
    if (!this.#seen.has(id)) {
      const came = new Promise<void>((resolve) => this.#waiting.set(id, resolve))
      await Promise.race([came, timeout(LINE_WAIT_MS)])
      this.#waiting.delete(id)
    }
    return this.#seen.get(id)
  }
}

/**
 * Whether an answer is wrangler dev's rather than the Worker's: after the
 * Worker answered 413 to a body it stopped reading, wrangler dev's proxy
 * (not there in production) may cut the client's next upload, or answer it
 * "Your worker restarted mid-request" though the Worker answered it.
 */
export function lostByProxy(status: number, text: string): boolean {
  return status === 503 && text.startsWith('Your worker restarted mid-request')
}

/** A request that did not answer in waitMs (REQUEST_WAIT_MS unless told) (a Worker gone, an isolate stuck), as the problem it is. */
export async function attempt<T>(work: () => Promise<T>, waitMs = REQUEST_WAIT_MS): Promise<T | string> {
  try {
    return await Promise.race([work(), timeout(waitMs).then(() => `no answer within ${waitMs} ms`)])
  } catch (e) {
    return `the request failed: ${e instanceof Error ? e.message : String(e)}`
  }
}

export function timeout(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}
