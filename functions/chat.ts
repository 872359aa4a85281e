import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi'
import type { Message } from '../lib/catalog'
import { API_ERRORS, errorsOf, jsonBody } from '../lib/http'
import type { AppEnv } from '../lib/http'
import { clientFor, complete, llmOptionsFrom, modelFor, routeFor, stream } from '../lib/llm'
import { requestLog } from '../lib/log'
import { renderRequested } from './rendering'
import { Args, BODY_LIMITS, PromptId, PromptQuery, RENDER_ERRORS, servedHeaders } from './shapes'

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
    query: PromptQuery,
    body: { content: { 'application/json': { schema: ChatBody } } },
  },
  responses: {
    200: {
      description: 'The chat completion; with `stream: true`, its chunks as server-sent events ending in [DONE]',
      content: {
        'application/json': { schema: ChatCompletion },
        'text/event-stream': { schema: z.string() },
      },
      headers: z.object({
        'Server-Timing': z.string().openapi({
          description: "The render's metrics, and `llm` (for a stream, until its first chunk).",
          example: 'redis;dur=2, tools;dur=0, render;dur=1, llm;dur=840, total;dur=843',
        }),
      }),
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
  const { args = {}, model: requested, stream: streamed, ...parameters } = c.req.valid('json')
  const rendered = await renderRequested(c, c.req.valid('param').prompt_id, args)
  // After the render, so that every render error answers exactly as /render's.
  const model = modelFor(c.env, requested)
  requestLog()?.set('model', model)
  const options = llmOptionsFrom(c.env)
  const client = clientFor(routeFor(c.env, model), options.timeoutMs)
  const messages: Message[] =
    typeof rendered.prompt === 'string' ? [{ role: 'user', content: rendered.prompt }] : rendered.prompt
  // The args stay here: only the rendered messages and the OpenAI parameters go to the provider.
  const request = { ...parameters, model, messages }

  if (streamed) {
    // `llm` runs until the first chunk: what follows streams after the headers are sent.
    const body = await rendered.timing.measure('llm', () => stream(client, request, options))
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'server-timing': rendered.timing.header(),
        ...servedHeaders(rendered.served),
      },
    })
  }
  const completion = await rendered.timing.measure('llm', () => complete(client, request, options))
  return new Response(completion, {
    headers: {
      'content-type': 'application/json',
      'server-timing': rendered.timing.header(),
      ...servedHeaders(rendered.served),
    },
  })
})
