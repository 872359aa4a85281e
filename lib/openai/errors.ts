import { isObject } from '../json'

/** OpenAI's error body: what each OpenAI client reads to raise its own typed error with the message. */
export interface OpenAiError {
  error: { message: string; type: string; param: string | null; code: string }
}

/**
 * One of the service's error bodies (`{status, code, message, ...extra}`)
 * in OpenAI's shape, for /v1: the same status, our stable code in `code`,
 * OpenAI's family of errors by status in `type`, and in `param` what the
 * error names of the request (a prompt's variable, a body member).
 */
export function openaiError(
  status: number,
  body: { code: string; message: string } & Record<string, unknown>,
): OpenAiError {
  return { error: { message: body.message, type: errorType(status), param: paramOf(body), code: body.code } }
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 429) return 'rate_limit_error'
  return status >= 500 ? 'server_error' : 'invalid_request_error'
}

/** INVALID_ARGS: the first variable at fault; MISSING_VARIABLE: the one the template read; else a `param` said. */
function paramOf(body: Record<string, unknown>): string | null {
  const [first] = Array.isArray(body.details) ? (body.details as unknown[]) : []
  if (isObject(first) && typeof first.arg === 'string') return first.arg
  if (typeof body.variable === 'string') return body.variable
  return typeof body.param === 'string' ? body.param : null
}
