import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { ServiceError } from '../errors'
import type { ErrorCode } from '../errors'

/**
 * The HTTP status of every error code: the status follows from the code, so
 * a handler can never pair a code with the wrong status.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  INVALID_ARGS: 400,
  INVALID_MESSAGES: 400,
  TEMPLATE_SYNTAX: 400,
  MISSING_VARIABLE: 400,
  LLM_REJECTED: 400,
  UNAUTHORIZED: 401,
  WRITES_DISABLED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VERSION_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  TESTS_FAILED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  LIMIT_EXCEEDED: 422,
  INTERNAL: 500,
  RENDER_FAILED: 500,
  LLM_FAILED: 502,
  LLM_INVALID_OUTPUT: 502,
  CHAT_TIMEOUT: 504,
  RENDER_TIMEOUT: 503,
  STORE_UNAVAILABLE: 503,
  MISCONFIGURED: 503,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>

/** A failure of the HTTP layer itself whose answer carries headers (`Allow` on a 405, a 401's challenge). */
export class HttpError extends ServiceError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly headers: Record<string, string>,
  ) {
    super(code, message)
  }
}
