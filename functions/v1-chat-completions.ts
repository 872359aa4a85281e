import * as z from 'zod/mini'
import { described, freshStoreOf, jsonBody, Routes, defineRoute, once, settingsOf } from '../lib/http'
import { answerChatCompletions } from '../lib/openai'
import { ChatMessage, FunctionTool, MAX_MESSAGES, MAX_TOOLS } from './chat'
import { servingOptionsOf } from './rendering'
import { BODY_LIMITS, chatHeaders } from './shapes'
import { ModelName, PROMPT_CHAT_ERRORS, PromptNaming, openaiErrorsOf } from './v1-shapes'

/** POST /v1/chat/completions: OpenAI's chat completions request, and the members naming a stored prompt. */
const ChatCompletionsBody = once(() =>
  described(
    z.looseObject({
      model: z.optional(ModelName()),
      ...PromptNaming(),
      messages: described(z.optional(z.array(ChatMessage()).check(z.maxLength(MAX_MESSAGES))), {
        description: "With a prompt, appended after the rendered prompt's messages; without, sent as they are.",
      }),
      tools: described(z.optional(z.array(FunctionTool()).check(z.maxLength(MAX_TOOLS))), {
        description: "The caller's function tools: with a prompt, offered beside the prompt's own.",
      }),
      stream: z.optional(z.boolean()),
    }),
    {
      id: 'ChatCompletionsRequest',
      description: `OpenAI's other parameters (\`temperature\`, \`max_tokens\`, \`stream_options\`, ...) are passed on. ${BODY_LIMITS}`,
    },
  ),
)

const route = defineRoute('post', '/v1/chat/completions', () => ({
  tags: ['openai'],
  summary: "A stored prompt's chat, or the routed model's, as OpenAI's chat completions",
  description:
    "With a stored prompt named (`prompt: {id, version, variables}`, `prompt_id`, or the model `prompt:<id>`): rendered and sent as /api/prompts/{prompt_id}/chat sends it, the body's messages after its own (`?label=` as there). Without: a plain pass-through to the routed model (LLM_ROUTES, LLM_BASE_URL).",
  middleware: jsonBody,
  request: {
    body: {
      content: {
        'application/json': {
          schema: ChatCompletionsBody(),
          example: {
            model: 'gpt-4o-mini',
            prompt: { id: 'evaluator.quick_review', variables: { code: 'func main() {}' } },
            messages: [],
          },
        },
      },
    },
  },
  responses: {
    200: {
      description:
        "OpenAI's chat completion, usage summed over the tool loop's steps; with `stream: true`, its chunks as server-sent events ending in [DONE] (a usage chunk when `stream_options.include_usage`), or `error` last on a failure",
      content: {
        'application/json': {
          schema: described(z.record(z.string(), z.unknown()), { id: 'ChatCompletionV1' }),
        },
        'text/event-stream': { schema: z.string() },
      },
    },
    ...openaiErrorsOf(...PROMPT_CHAT_ERRORS),
  },
}))

/** POST /v1/chat/completions: lib/openai's answer, with /chat's headers. */
export const v1ChatCompletions = new Routes().openapi(route, async (c) => {
  const context = { store: await freshStoreOf(c), settings: settingsOf(c), renderOptions: servingOptionsOf(c) }
  const answer = await answerChatCompletions(c.req.valid('json'), context)
  return new Response(answer.body, { headers: chatHeaders(answer) })
})
