import { z } from '@hono/zod-openapi'
import type { ErrorCode } from '../lib/http'

/** Request and answer shapes that /render and /chat share. */

export const PromptId = z.string().openapi({
  description: '`{extension}.{prompt}`, or the path of a prompt stored directly under shenma:templates:',
  example: 'evaluator.evaluate_quality',
})

export const Args = z.record(z.string(), z.unknown()).openapi({
  description: "The prompt's args, checked against its parameters; templates read them as `.args`.",
  example: { code: 'func main() {}' },
})

export const Message = z
  .object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() })
  .openapi('Message')

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
