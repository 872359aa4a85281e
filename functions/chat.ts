import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi'
import { intVar } from '../lib/env'
import { API_ERRORS, errorsOf, freshStoreOf, jsonBody } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { DEFAULT_LLM_MAX_BYTES, clientFor, complete, modelFor, routeFor, stream } from '../lib/llm'
import type { ChatMessage } from '../lib/llm'
import { requestLog } from '../lib/log'
import { renderOptionsFrom, renderPrompt } from '../lib/render'
import { Args, BODY_LIMITS, PromptId, RENDER_ERRORS } from './shapes'

const DEFAULT_LLM_TIMEOUT_MS = 30_000

/** POST /chat: the model (or LLM_DEFAULT_MODEL), the args, and the usual OpenAI parameters, passed through. */
const ChatBody = z
  .object({
    model: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'Defaults to LLM_DEFAULT_MODEL.', example: 'gpt-4o-mini' }),
    args: Args.optional(),
    temperature: z.number().optional(),
    max_tokens: z.number().int().positive().optional(),
    top_p: z.number().optional(),
    stop: z.union([z.string(), z.array(z.string())]).optional(),
    n: z.number().int().positive().optional(),
    user: z.string().optional(),
    response_format: z.record(z.string(), z.unknown()).optional(),
    seed: z.number().int().optional(),
    stream: z.boolean().optional().openapi({ description: "Answer with the provider's server-sent events." }),
  })
  .openapi('ChatRequest', { description: BODY_LIMITS })

const ChatCompletion = z.record(z.string(), z.unknown()).openapi('ChatCompletion', {
  description: "The provider's OpenAI chat completion (`object: chat.completion`), as it came.",
})

const route = createRoute({
  method: 'post',
  path: '/{prompt_id}/chat',
  tags: ['prompts'],
  summary: 'Renders a prompt and sends it to an OpenAI-compatible LLM',
  middleware: jsonBody,
  request: {
    params: z.object({ prompt_id: PromptId }),
    body: { content: { 'application/json': { schema: ChatBody } } },
  },
  responses: {
    200: {
      description: 'The chat completion; with `stream: true`, its chunks as server-sent events ending in [DONE]',
      content: {
        'application/json': { schema: ChatCompletion },
        'text/event-stream': { schema: z.string() },
      },
    },
    ...errorsOf(...API_ERRORS, ...RENDER_ERRORS, 'LLM_REJECTED', 'LLM_FAILED'),
  },
})

/**
 * POST /api/prompts/{prompt_id}/chat: renders the prompt exactly as /render
 * does (and fails as it does, before any LLM request), sends the messages
 * (a `prompt` as one user message) to the model, and answers the provider's
 * chat completion as it came, or its stream of chunks.
 */
export const chat = new OpenAPIHono<AppEnv>().openapi(route, async (c) => {
  const { prompt_id: id } = c.req.valid('param')
  const { args = {}, model: requested, stream: streamed, ...parameters } = c.req.valid('json')
  requestLog()?.set('prompt_id', id)
  const started = Date.now()
  const rendered = await renderPrompt(await freshStoreOf(c), id, args, renderOptionsFrom(c.env))
  const renderMs = Date.now() - started
  requestLog()?.debug({ args, rendered_prompt: rendered.prompt })
  // After the render, so that every render error answers exactly as /render's.
  const model = modelFor(c.env, requested)
  requestLog()?.set('model', model)
  const messages: ChatMessage[] =
    typeof rendered.prompt === 'string' ? [{ role: 'user', content: rendered.prompt }] : rendered.prompt
  const timeoutMs = intVar(c.env, 'LLM_TIMEOUT_MS', DEFAULT_LLM_TIMEOUT_MS)
  const maxBytes = intVar(c.env, 'LLM_MAX_BYTES', DEFAULT_LLM_MAX_BYTES)
  const client = clientFor(routeFor(c.env, model), timeoutMs)
  // The args stay here: only the rendered messages and the OpenAI parameters go to the provider.
  const request = { ...parameters, model, messages }

  const asked = Date.now()
  if (streamed) {
    const body = await stream(client, request, timeoutMs, maxBytes)
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'server-timing': timing(renderMs, Date.now() - asked),
      },
    })
  }
  const completion = await complete(client, request, timeoutMs, maxBytes)
  return new Response(completion, {
    headers: { 'content-type': 'application/json', 'server-timing': timing(renderMs, Date.now() - asked) },
  })
})

/** `render` and `llm` (for a stream, until its first chunk), in ms. */
function timing(renderMs: number, llmMs: number): string {
  return `render;dur=${renderMs}, llm;dur=${llmMs}`
}
