import * as z from 'zod/mini'
import { described, freshStoreOf, jsonBody, Routes, defineRoute, once, settingsOf } from '../lib/http'
import { answerResponses } from '../lib/openai'
import { FunctionName, MAX_MESSAGES, MAX_TOOLS, text } from './chat'
import { servingOptionsOf } from './rendering'
import { BODY_LIMITS, chatHeaders } from './shapes'
import { ModelName, PROMPT_CHAT_ERRORS, PromptNaming, openaiErrorsOf } from './v1-shapes'

/** Content parts an input item may carry. */
const MAX_PARTS = 256

const Part = once(() => z.looseObject({ type: text(1, 64), text: z.optional(z.string()) }))
const Content = () => z.optional(z.union([z.string(), z.array(Part()).check(z.maxLength(MAX_PARTS))]))

const InputItem = once(() =>
  described(
    z.looseObject({
      type: described(z.optional(text(1, 64)), {
        description: '`message` (the default), `function_call` or `function_call_output`.',
      }),
      role: z.optional(z.enum(['user', 'assistant', 'system', 'developer'])),
      content: described(Content(), { description: 'Text, or text parts (`input_text`, `output_text`).' }),
      call_id: z.optional(text(1, 256)),
      name: z.optional(FunctionName()),
      arguments: z.optional(z.string()),
      output: Content(),
    }),
    { id: 'ResponsesInputItem' },
  ),
)

const ResponsesTool = once(() =>
  described(
    z.looseObject({
      type: z.literal('function'),
      name: FunctionName(),
      description: z.optional(z.nullable(z.string())),
      parameters: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
      strict: z.optional(z.nullable(z.boolean())),
    }),
    {
      id: 'ResponsesFunctionTool',
      description: "The caller's own tool: its calls come back as `function_call` items.",
    },
  ),
)

/** POST /v1/responses: OpenAI Responses' request, the subset a stored prompt's call reads. */
const ResponsesBody = once(() =>
  described(
    z.looseObject({
      model: z.optional(ModelName()),
      ...PromptNaming(),
      input: described(z.optional(z.union([z.string(), z.array(InputItem()).check(z.maxLength(MAX_MESSAGES))])), {
        description: "Appended after the rendered prompt's messages: a string is one user message.",
      }),
      instructions: described(z.optional(z.nullable(z.string())), {
        description: "A system message before the prompt's.",
      }),
      tools: z.optional(z.array(ResponsesTool()).check(z.maxLength(MAX_TOOLS))),
      tool_choice: z.optional(
        z.union([
          z.enum(['none', 'auto', 'required']),
          z.looseObject({ type: text(1, 64), name: z.optional(FunctionName()) }),
        ]),
      ),
      parallel_tool_calls: z.optional(z.nullable(z.boolean())),
      max_output_tokens: described(z.optional(z.nullable(z.int().check(z.positive()))), {
        description: 'Sent as `max_tokens`.',
      }),
      temperature: z.optional(z.nullable(z.number())),
      top_p: z.optional(z.nullable(z.number())),
      stream: described(z.optional(z.nullable(z.boolean())), { description: 'Answer with Responses events.' }),
    }),
    {
      id: 'ResponsesRequest',
      description: `Other members of OpenAI's request are accepted and ignored. ${BODY_LIMITS}`,
    },
  ),
)

const ResponseObject = once(() =>
  described(z.record(z.string(), z.unknown()), {
    id: 'Response',
    description:
      "OpenAI's `response` (`object: response`, `status: completed`): `output` holds a `message` item with the answer's `output_text`, and a `function_call` item for each call of the caller's tools; `output_text`; `usage` summed over every step of the tool loop.",
  }),
)

const route = defineRoute('post', '/v1/responses', () => ({
  tags: ['openai'],
  summary: "Renders a stored prompt and chats, as OpenAI's Responses API",
  description:
    "The stored prompt named by `prompt: {id, version, variables}` (or `prompt_id`, or the model `prompt:<id>`), rendered and sent as /api/prompts/{prompt_id}/chat sends it (`?label=` as there). The `openai` SDK calls it with `responses.create`, its `apiKey` the service's API_TOKEN.",
  middleware: jsonBody,
  request: {
    body: {
      content: {
        'application/json': {
          schema: ResponsesBody(),
          example: { prompt: { id: 'evaluator.quick_review', variables: { code: 'func main() {}' } } },
        },
      },
    },
  },
  responses: {
    200: {
      description:
        'The response; with `stream: true`, Responses events (`response.created`, `response.output_text.delta`, ..., `response.completed`), or `error` last on a failure',
      content: { 'application/json': { schema: ResponseObject() }, 'text/event-stream': { schema: z.string() } },
    },
    ...openaiErrorsOf(...PROMPT_CHAT_ERRORS),
  },
}))

/** POST /v1/responses: lib/openai's answer, with /chat's headers. */
export const v1Responses = new Routes().openapi(route, async (c) => {
  const context = { store: await freshStoreOf(c), settings: settingsOf(c), renderOptions: servingOptionsOf(c) }
  const answer = await answerResponses(c.req.valid('json'), context)
  return new Response(answer.body, { headers: chatHeaders(answer) })
})
