import * as z from 'zod/mini'
import {
  getServedPrompt,
  listPrompts,
  normalizeParameters,
  promptAt,
  promptDescription,
  promptKind,
} from '../lib/catalog'
import type { Prompt } from '../lib/catalog'
import {
  API_ERRORS,
  errorsOf,
  json,
  jsonBody,
  pageOf,
  paged,
  storeOf,
  success,
  successOf,
  Routes,
  defineRoute,
  described,
  once,
} from '../lib/http'
import { decodeRollout } from '../lib/rollout'
import { renderAnswer, renderRequested } from './rendering'
import {
  Args,
  BODY_LIMITS,
  ExplainQuery,
  ListQuery,
  Message,
  PromptId,
  PromptQuery,
  RENDER_ERRORS,
  RenderAnswer,
  RenderHeaders,
  ServedHeaders,
  pageAsked,
  servedHeaders,
} from './shapes'

const PromptSummary = once(() =>
  described(
    z.object({
      id: described(z.string(), { example: 'evaluator.evaluate_quality' }),
      origin: z.enum(['extension', 'direct']),
      kind: z.enum(['prompt', 'messages']),
      description: z.nullable(z.string()),
      supports: z.array(z.string()),
    }),
    { id: 'PromptSummary' },
  ),
)

const PromptDetail = once(() =>
  described(
    z.extend(PromptSummary(), {
      prompt: described(z.optional(z.string()), { description: 'The template, for a prompt of kind `prompt`.' }),
      messages: described(z.optional(z.array(Message())), {
        description: 'The templates, for a prompt of kind `messages`.',
      }),
      parameters: described(
        z.catchall(
          z.object({
            type: z.literal('object'),
            properties: z.record(z.string(), z.unknown()),
            required: z.array(z.string()),
          }),
          z.unknown(),
        ),
        { description: 'Its args, whatever shape they were published in, as a JSON Schema of type object.' },
      ),
      returns: z.unknown(),
      tools: described(z.array(z.string()), {
        description: 'The tools a chat offers the model (their ids); none, an empty list.',
      }),
      tests: described(z.array(z.unknown()), {
        description: 'Its test cases (jsonschema/prompt.json `tests`, docs/prompt-tests.md); none, an empty list.',
      }),
      rollout: described(
        z.optional(
          z.object({
            label: z.nullable(z.string()),
            versions: z.array(z.object({ version: z.int(), weight: z.int() })),
            sticky: z.nullable(z.string()),
          }),
        ),
        {
          description:
            'Present when a rollout serves the prompt (no `?version=` asked): its versions, newest first, and weights (GET .../rollout).',
        },
      ),
    }),
    { id: 'PromptDetail' },
  ),
)

const list = defineRoute('get', '/api/prompts', () => ({
  tags: ['prompts'],
  summary: 'The prompts, from extensions and stored directly',
  request: {
    query: z.extend(ListQuery(), {
      supports: described(z.optional(z.union([z.string(), z.array(z.string())])), {
        description: 'Only prompts supporting all of these, such as `chat` (repeatable, or comma-separated).',
      }),
      extension: described(z.optional(z.string()), {
        description:
          'Only the prompts whose id starts with it and a dot, such as `evaluator`: those of this extension, and the direct ones under it.',
      }),
    }),
  },
  responses: {
    200: json(
      'A page of the prompts: those of extensions, by key and then in their order, then the direct ones, by key. A filtered page may hold fewer than `limit`.',
      pageOf('PromptList', z.array(PromptSummary())),
    ),
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST'),
  },
}))

const one = defineRoute('get', '/api/prompts/{prompt_id}', () => ({
  tags: ['prompts'],
  summary: 'One prompt, with its template and parameters',
  request: { params: z.object({ prompt_id: PromptId() }), query: PromptQuery() },
  responses: {
    200: { ...json('The prompt', successOf('PromptAnswer', PromptDetail())), headers: ServedHeaders() },
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'NOT_FOUND', 'VERSION_NOT_FOUND', 'CONFLICT'),
  },
}))

const RenderBody = once(() =>
  described(z.object({ args: z.optional(Args()) }), { id: 'RenderRequest', description: BODY_LIMITS }),
)

const render = defineRoute('post', '/api/prompts/{prompt_id}/render', () => ({
  tags: ['prompts'],
  summary: 'Renders a prompt with its args and the shared variables, calling its tools',
  middleware: jsonBody,
  request: {
    params: z.object({ prompt_id: PromptId() }),
    query: z.extend(PromptQuery(), { explain: ExplainQuery() }),
    body: {
      content: { 'application/json': { schema: RenderBody(), example: { args: { code: 'func main() {}' } } } },
    },
  },
  responses: {
    200: {
      ...json('The rendered prompt', RenderAnswer()),
      headers: z.extend(ServedHeaders(), RenderHeaders()),
    },
    ...errorsOf(...API_ERRORS, ...RENDER_ERRORS),
  },
}))

/**
 * GET /api/prompts (a page: `?limit`, `?cursor`; filters: `?supports=chat`,
 * repeatable or comma-separated, all of which a prompt must support;
 * `?extension=X`, ids starting `X.`),
 * GET /api/prompts/{prompt_id} and POST /api/prompts/{prompt_id}/render.
 */
export const prompts = new Routes()
  .openapi(list, async (c) => {
    const query = c.req.valid('query')
    const supports = [query.supports ?? []]
      .flat()
      .flatMap((s) => s.split(','))
      .filter(Boolean)
    const { items, skipped, next } = await listPrompts(storeOf(c), { ...pageAsked(query), extension: query.extension })
    const chosen = items.filter((p) => supports.every((s) => p.record.supports?.includes(s)))
    return paged(c, chosen.map(summary), skipped, next)
  })
  .openapi(one, async (c) => {
    const store = storeOf(c)
    const id = c.req.valid('param').prompt_id
    const { version } = c.req.valid('query')
    const {
      prompt,
      served,
      rollout: stored,
    } = await (version === undefined
      ? getServedPrompt(store, id)
      : promptAt(store, id, Number(version)).then((at) => ({ ...at, rollout: null })))
    for (const [name, value] of Object.entries(servedHeaders(served))) c.header(name, value)
    // Read with the prompt, at no cost: what the playground shows of it.
    const rollout = stored === null ? undefined : decodeRollout(stored)
    return success(
      c,
      rollout ? { ...detail(prompt), rollout: { label: served.label ?? null, ...rollout } } : detail(prompt),
    )
  })
  .openapi(render, async (c) => {
    const { args = {} } = c.req.valid('json')
    const explain = c.req.valid('query').explain === 'true'
    const rendered = await renderRequested(c, c.req.valid('param').prompt_id, args, { explain })
    return c.json(renderAnswer(c, rendered, explain), 200)
  })

function summary(prompt: Prompt) {
  return {
    id: prompt.id,
    origin: prompt.origin,
    kind: promptKind(prompt),
    description: promptDescription(prompt) ?? null,
    supports: prompt.record.supports ?? [],
  }
}

function detail(prompt: Prompt) {
  const { record } = prompt
  const template = record.messages === undefined ? { prompt: record.prompt } : { messages: record.messages }
  return {
    ...summary(prompt),
    ...template,
    parameters: normalizeParameters(record.parameters),
    returns: record.returns ?? null,
    tools: record.tools ?? [],
    tests: record.tests ?? [],
  }
}
