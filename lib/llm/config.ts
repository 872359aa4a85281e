import type { Env } from '../env'
import { ServiceError, misconfigured } from '../errors'

/** Where a model is reached: an OpenAI-compatible base URL (version path included) and its key. */
export interface LlmRoute {
  baseURL: string
  apiKey: string
}

interface RouteSpec {
  baseURL: string
  apiKeyVar?: string
}

/**
 * The route of a model: its entry in LLM_ROUTES (`{"<model>": {"baseURL": ...,
 * "apiKeyVar": "<name of the secret holding the key>"}}`), else the default
 * LLM_BASE_URL with LLM_API_KEY. One deployment so reaches several providers.
 */
export function routeFor(env: Env, model: string): LlmRoute {
  const routes = parseRoutes(env.LLM_ROUTES)
  const spec = Object.hasOwn(routes, model) ? routes[model] : undefined
  if (spec) return { baseURL: spec.baseURL, apiKey: secret(env, spec.apiKeyVar, model) }
  if (!env.LLM_BASE_URL) throw misconfigured('LLM_BASE_URL', 'is not set: no provider to send the chat to')
  return { baseURL: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY ?? '' }
}

/** The model to ask: the body's, else LLM_DEFAULT_MODEL. */
export function modelFor(env: Env, requested: string | undefined): string {
  const model = requested ?? env.LLM_DEFAULT_MODEL
  if (!model) throw new ServiceError('BAD_REQUEST', 'the body names no model, and LLM_DEFAULT_MODEL is not set')
  return model
}

function parseRoutes(raw: string | undefined): Record<string, RouteSpec> {
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
    if (typeof (spec as RouteSpec | null)?.baseURL !== 'string') {
      throw misconfigured('LLM_ROUTES', `has no baseURL for model ${JSON.stringify(model)}`)
    }
  }
  return routes as Record<string, RouteSpec>
}

/** A secret named by a route; the name comes from configuration, never from a request. */
function secret(env: Env, name: string | undefined, model: string): string {
  if (!name) return ''
  const value = (env as Record<string, unknown>)[name]
  if (typeof value !== 'string')
    throw misconfigured(name, `is not set: LLM_ROUTES names it as the key of model ${model}`)
  return value
}
