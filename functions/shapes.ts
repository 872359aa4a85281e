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

/** `?label=`: every route reads (and writes) as a label sees the records (lib/http/context.ts checks it). */
export const LabelQuery = z.string().optional().openapi({
  description:
    "The label (branch) to read or write: its own records over the base's. Unset, the deployment's PROMPT_LABEL; empty, the base. 1 to 63 of a-z, 0-9 and '-', not starting with '-'.",
  example: 'feat-login',
})

/** `?version=N`: exactly that version of the prompt's record. */
export const VersionQuery = z
  .string()
  .regex(/^[1-9][0-9]{0,8}$/, 'must be a version number, 1 or more')
  .optional()
  .openapi({
    description: "Serve exactly this version of the prompt's record (404 VERSION_NOT_FOUND when it is not kept).",
    example: '3',
  })

/** The query of a route that reads a prompt: its label, and a version. */
export const PromptQuery = z.object({ label: LabelQuery, version: VersionQuery })

/** The query of every other reading route. */
export const ReadQuery = z.object({ label: LabelQuery })

/** The headers of an answer made from a prompt (servedHeaders), as OpenAPI shows them. */
export const ServedHeaders = z.object({
  'X-Prompt-Version': z.string().openapi({
    description: "The version of the prompt's record served, or `unversioned` (written by other means).",
    example: '3',
  }),
  'X-Prompt-Label': z
    .string()
    .optional()
    .openapi({ description: "The label whose own record was served; absent for the base's.", example: 'feat-login' }),
})

/** The version a read served, as the answer's headers. */
export function servedHeaders(served: { version: number | null; label?: string }): Record<string, string> {
  const headers: Record<string, string> = { 'X-Prompt-Version': String(served.version ?? 'unversioned') }
  if (served.label !== undefined) headers['X-Prompt-Label'] = served.label
  return headers
}
