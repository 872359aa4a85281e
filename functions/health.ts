import * as z from 'zod/mini'
import { version } from '../package.json'
import { Routes, defineRoute, described, errorsOf, json, settingsOf, storeOf, success, successOf } from '../lib/http'

const route = defineRoute('get', '/health', () => ({
  tags: ['service'],
  summary: 'The service is up: its version and which store it reads',
  security: [],
  responses: {
    200: json(
      'Up',
      successOf(
        'Health',
        z.object({
          service: z.literal('ai-prompt-shell'),
          version: described(z.string(), { example: version }),
          store: described(z.enum(['embedded', 'upstash']), {
            description: '`embedded` when UPSTASH_REDIS_REST_URL and _TOKEN are unset (the bundled examples).',
          }),
          llm: described(z.boolean(), {
            description: 'Whether chats have a provider (LLM_BASE_URL or LLM_ROUTES is set).',
          }),
        }),
      ),
    ),
    ...errorsOf('MISCONFIGURED'),
  },
}))

/** GET /health: answers from configuration alone, without a Redis request. */
export const health = new Routes().openapi(route, (c) =>
  success(c, {
    service: 'ai-prompt-shell' as const,
    version,
    store: storeOf(c).kind,
    llm: settingsOf(c).llmConfigured,
  }),
)
