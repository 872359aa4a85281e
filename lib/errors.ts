/**
 * The service's error vocabulary. Every feature fails with one of these
 * codes, whoever serves it: the HTTP layer maps each code to its status
 * (lib/http/errors.ts), the CLI prints the code.
 */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'INVALID_ARGS',
  'INVALID_MESSAGES',
  'TEMPLATE_SYNTAX',
  'MISSING_VARIABLE',
  'LLM_REJECTED',
  'UNAUTHORIZED',
  'WRITES_DISABLED',
  'FORBIDDEN',
  'NOT_FOUND',
  'VERSION_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'TESTS_FAILED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'LIMIT_EXCEEDED',
  'INTERNAL',
  'RENDER_FAILED',
  'LLM_FAILED',
  'LLM_INVALID_OUTPUT',
  'CHAT_TIMEOUT',
  'RENDER_TIMEOUT',
  'STORE_UNAVAILABLE',
  'MISCONFIGURED',
] as const

export type ErrorCode = (typeof ERROR_CODES)[number]

export interface ServiceErrorOptions {
  cause?: unknown
  /** Extra fields merged into the error body (for example `details`). */
  extra?: Record<string, unknown>
  /** The message may hold request data (args, rendered text): logs get the code and `extra`, not the message. */
  sensitive?: boolean
}

/** The one error type that crosses from lib/ to whoever serves it. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError'
  readonly extra: Record<string, unknown> | undefined
  readonly sensitive: boolean

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: ServiceErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.extra = options.extra
    this.sensitive = options.sensitive ?? false
  }
}

/** `text` as a message quotes it: its first `max` characters, then `...` when there were more. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text
}

/**
 * A write where there is nothing to write to: the embedded store (no Redis
 * configured), which serves examples/ read-only. Said before anything about
 * tokens, which would not help.
 */
export function writesNeedRedis(): ServiceError {
  return new ServiceError(
    'WRITES_DISABLED',
    'the embedded store is read-only: writes need Redis. Locally, `npm run dev:redis` starts one with writes enabled; ' +
      'deployed, set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, and the secret ADMIN_TOKEN',
  )
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
