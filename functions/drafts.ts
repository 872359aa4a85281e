import * as z from 'zod/mini'
import { draftPrompt } from '../lib/catalog'
import {
  API_ERRORS,
  errorsOf,
  freshStoreOf,
  json,
  jsonBody,
  Routes,
  defineRoute,
  described,
  once,
  renderOptionsOf,
} from '../lib/http'
import { requestLog } from '../lib/log'
import { renderDraft } from '../lib/render'
import { renderAnswer } from './rendering'
import { Args, BODY_LIMITS, Message, RENDER_ERRORS, ReadQuery, RenderAnswer, RenderHeaders } from './shapes'

const DraftBody = once(() =>
  described(
    z.object({
      prompt: described(z.optional(z.string()), { description: 'A text template (or `messages`).' }),
      messages: described(z.optional(z.array(Message())), { description: 'Message templates (or `prompt`).' }),
      parameters: described(z.optional(z.unknown()), {
        description:
          'Its args, in any shape a stored prompt may have: a JSON Schema object, an array of `{name, type, default, description}`, or a map from name to schema.',
        example: { code: { type: 'string' } },
      }),
      args: z.optional(Args()),
    }),
    { id: 'DraftRenderRequest', description: `A prompt not stored, with its args. ${BODY_LIMITS}` },
  ),
)

const draft = defineRoute('post', '/api/render', () => ({
  tags: ['prompts'],
  summary: 'Renders a draft: a template given in the body, exactly as a stored prompt renders, storing nothing',
  middleware: jsonBody,
  request: {
    query: ReadQuery(),
    body: {
      content: {
        'application/json': {
          schema: DraftBody(),
          example: {
            prompt: 'Review this {{.vscode.programming_language}} code:\n{{fence "go" .args.code}}',
            parameters: { code: { type: 'string' } },
            args: { code: 'package main' },
          },
        },
      },
    },
  },
  responses: {
    200: { ...json('The rendered draft, explained', RenderAnswer()), headers: z.object(RenderHeaders()) },
    ...errorsOf(...API_ERRORS, ...RENDER_ERRORS),
  },
}))

/**
 * POST /api/render: what an author sees before publishing. The draft is
 * checked as a stored prompt record is (400 naming what is wrong, a template
 * that does not parse 400 TEMPLATE_SYNTAX at `draft:LINE:COL`), then renders
 * with the shared variables and tools that `?label=` sees, under the same
 * deadline and limits. The answer is always explained.
 */
export const drafts = new Routes().openapi(draft, async (c) => {
  const { args = {}, prompt, messages, parameters } = c.req.valid('json')
  const record = Object.fromEntries(Object.entries({ prompt, messages, parameters }).filter(([, v]) => v !== undefined))
  const rendered = await renderDraft(await freshStoreOf(c), draftPrompt(record), args, renderOptionsOf(c))
  requestLog()?.debug({ args, rendered_prompt: rendered.prompt })
  return c.json(renderAnswer(c, rendered, true), 200)
})
