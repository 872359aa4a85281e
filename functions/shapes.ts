import { z } from '@hono/zod-openapi'
import { ID_RULES, MAX_ID_LENGTH, MESSAGE_ROLES, TOO_LONG } from '../lib/catalog'
import type { IdKind, Message as MessageType } from '../lib/catalog'
import type { ErrorCode } from '../lib/errors'
import { MAX_JSON_DEPTH } from '../lib/json'

/** Request and answer shapes the routes share. */

/**
 * A path parameter naming a record, checked (length first, which bounds the
 * pattern's work) before any Redis request; OpenAPI shows the limits.
 */
export function idParam(kind: IdKind, description: string, example: string) {
  const rule = ID_RULES[kind]
  return z
    .string()
    .max(MAX_ID_LENGTH, { message: TOO_LONG, abort: true })
    .regex(rule.pattern, rule.problem)
    .openapi({ description, example })
}

export const PromptId = idParam(
  'prompt',
  '`{extension}.{prompt}`, or the path of a prompt stored directly under shenma:templates:',
  'evaluator.evaluate_quality',
)

export const Args = z.record(z.string(), z.unknown()).openapi({
  description: "The prompt's args, checked against its parameters; templates read them as `.args`.",
  example: { code: 'func main() {}' },
})

/** What every JSON body is bounded by, said once for the OpenAPI descriptions. */
export const BODY_LIMITS = `At most MAX_BODY_BYTES (default 1 MiB; past it, 413 PAYLOAD_TOO_LARGE), nested at most ${MAX_JSON_DEPTH} levels deep.`

/** lib/catalog's Message, as OpenAPI shows it. */
export const Message = z
  .object({ role: z.enum(MESSAGE_ROLES), content: z.string() })
  .openapi('Message') satisfies z.ZodType<MessageType>

/** Every way a render fails, before any LLM is asked. */
export const RENDER_ERRORS = [
  'BAD_REQUEST',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INVALID_ARGS',
  'TEMPLATE_SYNTAX',
  'MISSING_VARIABLE',
  'NOT_FOUND',
  'LIMIT_EXCEEDED',
  'RENDER_FAILED',
  'RENDER_TIMEOUT',
] as const satisfies readonly ErrorCode[]
