/**
 * The service's error vocabulary. Every feature answers failures with one of
 * these codes; the HTTP status follows from the code, so a handler can never
 * pair a code with the wrong status.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  INVALID_ARGS: 400,
  TEMPLATE_SYNTAX: 400,
  MISSING_VARIABLE: 400,
  LLM_REJECTED: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  LIMIT_EXCEEDED: 422,
  INTERNAL: 500,
  RENDER_FAILED: 500,
  LLM_FAILED: 502,
  RENDER_TIMEOUT: 503,
  STORE_UNAVAILABLE: 503,
  MISCONFIGURED: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode]

export interface ServiceErrorOptions {
  cause?: unknown
  /** Extra fields merged into the error body (for example `details`). */
  extra?: Record<string, unknown>
  /** Extra response headers (for example `Allow` on a 405). */
  headers?: Record<string, string>
  /** The message may hold request data (args, rendered text): logs get the code and `extra`, not the message. */
  sensitive?: boolean
}

/** The one error type that crosses from lib/ to the HTTP layer. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError'
  readonly status: ErrorStatus
  readonly extra: Record<string, unknown> | undefined
  readonly headers: Record<string, string> | undefined
  readonly sensitive: boolean

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: ServiceErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.status = ERROR_STATUS[code]
    this.extra = options.extra
    this.headers = options.headers
    this.sensitive = options.sensitive ?? false
  }
}

export function notFound(what: string, id: string, why?: string): ServiceError {
  return new ServiceError('NOT_FOUND', `${what} '${id}' ${why ?? 'does not exist'}`)
}

/**
 * A setting of the Worker that is missing or malformed: the operator's fault,
 * said plainly. The answer and the log line name the setting (`setting`);
 * `problem` follows its name ("must be a positive integer, got 'abc'").
 */
export function misconfigured(setting: string, problem: string, cause?: unknown): ServiceError {
  return new ServiceError('MISCONFIGURED', `${setting} ${problem}`, { cause, extra: { setting } })
}
