import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi'
import { version } from '../package.json'
import { errorsOf, json, storeOf, success, successOf } from '../lib/http'
import type { AppEnv } from '../lib/http'

const route = createRoute({
  method: 'get',
  path: '/health',
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
          version: z.string().openapi({ example: version }),
          store: z.enum(['embedded', 'upstash']).openapi({
            description: '`embedded` when UPSTASH_REDIS_REST_URL and _TOKEN are unset (the bundled examples).',
          }),
          llm: z
            .boolean()
            .openapi({ description: 'Whether chats have a provider (LLM_BASE_URL or LLM_ROUTES is set).' }),
        }),
      ),
    ),
    ...errorsOf('MISCONFIGURED'),
  },
})

/** GET /health: answers from configuration alone, without a Redis request. */
export const health = new OpenAPIHono<AppEnv>().openapi(route, (c) =>
  success(c, {
    service: 'ai-prompt-shell' as const,
    version,
    store: storeOf(c).kind,
    llm: Boolean(c.env.LLM_BASE_URL || c.env.LLM_ROUTES),
  }),
)
