import * as z from 'zod/mini'
import { Routes, defineRoute, described, json, settingsOf } from '../lib/http'
import { modelList } from '../lib/openai'
import { openaiErrorsOf } from './v1-shapes'

const route = defineRoute('get', '/v1/models', () => ({
  tags: ['openai'],
  summary: 'The models the service routes, as OpenAI lists models',
  responses: {
    200: json(
      "LLM_ROUTES' models, then LLM_DEFAULT_MODEL",
      described(
        z.object({
          object: z.literal('list'),
          data: z.array(
            z.object({
              id: described(z.string(), { example: 'gpt-4o-mini' }),
              object: z.literal('model'),
              created: z.literal(0),
              owned_by: z.literal('ai-prompt-shell'),
            }),
          ),
        }),
        { id: 'ModelList' },
      ),
    ),
    ...openaiErrorsOf('MISCONFIGURED'),
  },
}))

/** GET /v1/models: from configuration alone. */
export const v1Models = new Routes().openapi(route, (c) => c.json(modelList(settingsOf(c).llmModels), 200))
