import { ServiceError, misconfigured } from '../errors'

/** The HTTP APIs a model is reached by: OpenAI's chat completions (and every compatible one), or a native one. */
const LLM_APIS = ['openai', 'anthropic', 'gemini'] as const
export type LlmApi = (typeof LLM_APIS)[number]

/**
 * Where a model is reached: its API, the base URL (OpenAI's with the version
 * path included; a native API's root, the adapter adds the paths), its key,
 * and the `max_tokens` to send where the API requires one and the request
 * has none.
 */
export interface LlmRoute {
  api: LlmApi
  baseURL: string
  apiKey: string
  maxTokens?: number | undefined
}

export interface RouteSpec {
  api?: LlmApi
  baseURL: string
  apiKeyVar?: string
  maxTokens?: number
}

/**
 * The model to ask: the body's, else LLM_DEFAULT_MODEL. With neither, the
 * request's fault only where an LLM is configured; where none is, that is
 * what the operator must hear first.
 */
export function modelFor(
  requested: string | undefined,
  settings: { defaultModel: string | undefined; llmConfigured: boolean },
): string {
  const model = requested ?? settings.defaultModel
  if (model) return model
  if (!settings.llmConfigured) throw noLlm()
  throw new ServiceError('BAD_REQUEST', 'the body names no model, and LLM_DEFAULT_MODEL is not set')
}

/** No provider for chats: LLM_BASE_URL and LLM_ROUTES are both unset. */
export function noLlm(): ServiceError {
  return misconfigured(
    'LLM_BASE_URL',
    'is not set, nor LLM_ROUTES: no LLM is configured for chats (set LLM_BASE_URL and LLM_API_KEY, or LLM_ROUTES, and LLM_DEFAULT_MODEL or a model in the body)',
  )
}

/**
 * LLM_ROUTES (`{"<model>": {"baseURL": ..., "apiKeyVar": "<name of the
 * secret holding the key>", "api": "anthropic", "maxTokens": 4096}}`),
 * checked: a model it names is reached there, any other at LLM_BASE_URL
 * with LLM_API_KEY (lib/settings.ts). One deployment so reaches several providers.
 */
export function parseRoutes(raw: string | undefined): Record<string, RouteSpec> {
  if (!raw) return {}
  let routes: unknown
  try {
    routes = JSON.parse(raw)
  } catch {
    throw misconfigured('LLM_ROUTES', 'is not valid JSON')
  }
  if (typeof routes !== 'object' || routes === null || Array.isArray(routes)) {
    throw misconfigured('LLM_ROUTES', 'must be a JSON object from model to {baseURL, apiKeyVar}')
  }
  for (const [model, spec] of Object.entries(routes)) {
    const { baseURL, api, maxTokens } = (spec ?? {}) as Partial<Record<keyof RouteSpec, unknown>>
    const named = JSON.stringify(model)
    if (typeof baseURL !== 'string') throw misconfigured('LLM_ROUTES', `has no baseURL for model ${named}`)
    if (api !== undefined && !LLM_APIS.includes(api as LlmApi)) {
      throw misconfigured(
        'LLM_ROUTES',
        `names api ${JSON.stringify(api)} for model ${named}: one of ${LLM_APIS.join(', ')}`,
      )
    }
    if (maxTokens !== undefined && !(Number.isSafeInteger(maxTokens) && (maxTokens as number) > 0)) {
      throw misconfigured('LLM_ROUTES', `has a maxTokens for model ${named} that is not a positive integer`)
    }
  }
  return routes as Record<string, RouteSpec>
}
