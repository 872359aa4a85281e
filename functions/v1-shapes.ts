import * as z from 'zod/mini'
import { ERROR_CODES } from '../lib/errors'
import type { ErrorCode } from '../lib/errors'
import { ERROR_STATUS, described, json, once } from '../lib/http'
import { text } from './chat'
import { Args, PromptId, RENDER_ERRORS } from './shapes'

/** Shapes the /v1 routes share: OpenAI's, as far as the service reads them. */

/** `{"error": {...}}`: every error under /v1 (lib/openai/errors.ts). */
export const OpenAiErrorBody = once(() =>
  described(
    z.object({
      error: z.object({
        message: described(z.string(), { description: 'What was wrong, naming the field, prompt or variable.' }),
        type: described(
          z.enum([
            'invalid_request_error',
            'authentication_error',
            'permission_error',
            'not_found_error',
            'rate_limit_error',
            'server_error',
          ]),
          { description: "OpenAI's family of the error, by status." },
        ),
        param: described(z.nullable(z.string()), {
          description: 'The variable (INVALID_ARGS, MISSING_VARIABLE) or body member at fault, if one is.',
        }),
        code: described(z.enum(ERROR_CODES), { description: "The service's stable code, as /api's errors have it." }),
      }),
    }),
    { id: 'OpenAiError', description: "OpenAI's error body: each OpenAI client raises its own typed error with it." },
  ),
)

/** What a /v1 call of a stored prompt's chat may answer: a render's errors, then the chat's. */
export const PROMPT_CHAT_ERRORS = [
  ...RENDER_ERRORS,
  'STORE_UNAVAILABLE',
  'MISCONFIGURED',
  'INVALID_MESSAGES',
  'LLM_REJECTED',
  'LLM_FAILED',
  'LLM_INVALID_OUTPUT',
  'CHAT_TIMEOUT',
] as const satisfies readonly ErrorCode[]

/** The error answers of a /v1 route, by status, in OpenAI's shape; every one can give 401 and 500. */
export function openaiErrorsOf(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of new Set<ErrorCode>(['UNAUTHORIZED', ...codes, 'INTERNAL'])) {
    const status = ERROR_STATUS[code]
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  return Object.fromEntries([...byStatus].map(([status, list]) => [status, json(list.join(', '), OpenAiErrorBody())]))
}

/** A model's name, or `prompt:<id>` / `prompt:<id>@<version>` naming a stored prompt. */
export const ModelName = once(() =>
  described(text(1, 256), {
    description:
      'The LLM model (LLM_ROUTES, LLM_BASE_URL); or `prompt:<id>` or `prompt:<id>@<version>` naming the stored prompt, the model then its own or LLM_DEFAULT_MODEL.',
    example: 'gpt-4o-mini',
  }),
)

const Version = () => z.optional(z.nullable(z.union([text(1, 9), z.int().check(z.positive())])))

/** The members naming a stored prompt, in each client's spelling; the first given wins. */
export const PromptNaming = once(() => ({
  prompt: described(
    z.optional(
      z.nullable(
        z.looseObject({
          id: PromptId(),
          version: described(Version(), {
            description: "A version number of the prompt's record; unset, the current.",
          }),
          variables: described(z.optional(z.nullable(Args())), {
            description: "The render's args, checked against the prompt's parameters.",
          }),
        }),
      ),
    ),
    { id: 'PromptParam', description: "OpenAI Responses' `prompt`: the stored prompt to render and send." },
  ),
  prompt_id: described(z.optional(PromptId()), { description: "LiteLLM's spelling of `prompt.id`." }),
  prompt_version: described(Version(), { description: "LiteLLM's spelling of `prompt.version`." }),
  prompt_variables: described(z.optional(Args()), { description: "LiteLLM's spelling of `prompt.variables`." }),
  metadata: described(z.optional(z.nullable(z.record(text(1, 64), z.string()))), {
    description: 'With the model `prompt:<id>`: the variables, each a string.',
  }),
}))
