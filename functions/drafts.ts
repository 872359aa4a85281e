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
import {
  Args,
  BODY_LIMITS,
  DraftVariables,
  Message,
  RENDER_ERRORS,
  ReadQuery,
  RenderAnswer,
  RenderHeaders,
  definedOnly,
} from './shapes'

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
      returns: described(z.optional(z.unknown()), {
        description: "What a chat's answer is checked against, as a stored prompt's `returns`.",
      }),
      tools: described(z.optional(z.array(z.string())), {
        description: 'The tools a chat offers the model, as a stored prompt declares them.',
      }),
      args: z.optional(Args()),
      variables: z.optional(DraftVariables()),
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
 * deadline and limits. `variables` are laid over the shared variables for
 * this render only, never written. The answer is always explained; so is a
 * failure, once the template compiled (its `analysis`).
 */
export const drafts = new Routes().openapi(draft, async (c) => {
  const { args = {}, variables, ...record } = c.req.valid('json')
  const options = { ...renderOptionsOf(c), overlay: { variables }, explain: true }
  const rendered = await renderDraft(await freshStoreOf(c), draftPrompt(definedOnly(record)), args, options)
  requestLog()?.debug({ args, rendered_prompt: rendered.prompt })
  return c.json(renderAnswer(c, rendered, true), 200)
})
