import { TooLargeError, decodeText, readBody, shortReason } from '../egress'

/** An error answer's bytes read at most: enough for the provider's message, never a flood. */
const ERROR_BODY = { bytes: 64 * 1024, name: 'an error answer' }

/** Characters of a provider's words quoted at most: a message says what to fix, in a line. */
const MESSAGE_CHARS = 300

/**
 * What a provider said, as an error of ours may quote it: one clean line of
 * at most MESSAGE_CHARS characters, the service's secrets redacted (a
 * provider may echo the request's key).
 */
export function providerWords(text: string): string {
  return shortReason(text, MESSAGE_CHARS)
}

/** The provider answered with an error status; `message` is its own words when its body had some. */
export class ProviderError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** The provider could not be reached: the connection failed before any answer. */
export class ConnectionError extends Error {}

/**
 * One POST to a provider: its answer when the status is a success; else a
 * ProviderError with the provider's own words. `timeoutMs` bounds the wait
 * for the response headers, and the reading of an error answer; `outer` (a
 * chat's deadline) aborts it with its own reason.
 */
export async function post(url: string, init: RequestInit, timeoutMs: number, outer?: AbortSignal): Promise<Response> {
  const timeout = new AbortController()
  const timer = setTimeout(
    () => timeout.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  )
  const signal = outer ? AbortSignal.any([outer, timeout.signal]) : timeout.signal
  try {
    let response: Response
    try {
      response = await fetch(url, { ...init, signal })
    } catch (e) {
      if (signal.aborted) throw signal.reason
      throw new ConnectionError(e instanceof Error ? e.message : String(e), { cause: e })
    }
    if (response.ok) return response
    throw new ProviderError(response.status, await errorMessage(response, signal))
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The provider's message in an error answer (`{"error": {"message": ...}}`
 * as OpenAI words it), read within ERROR_BODY and `signal`; a bigger body
 * says nothing.
 */
async function errorMessage(response: Response, signal: AbortSignal): Promise<string> {
  let text: string
  try {
    text = decodeText(await readBody(response, ERROR_BODY, signal))
  } catch (e) {
    if (!(e instanceof TooLargeError)) throw e
    return 'an error answer too big to read'
  }
  let error: unknown
  try {
    error = (JSON.parse(text) as { error?: unknown } | null)?.error
  } catch {
    return text.trim() || 'an error answer with no body'
  }
  const message = (error as { message?: unknown } | null | undefined)?.message
  if (typeof message === 'string') return message
  return error === undefined ? 'an error answer with no message' : JSON.stringify(error)
}
