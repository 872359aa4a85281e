import * as z from 'zod/mini'
import { answerChat } from '../lib/chat'
import {
  API_ERRORS,
  errorsOf,
  freshStoreOf,
  jsonBody,
  Routes,
  defineRoute,
  described,
  once,
  renderOptionsOf,
  settingsOf,
} from '../lib/http'
import { CHAT_ROLES } from '../lib/llm'
import { renderRequested } from './rendering'
import {
  Args,
  BODY_LIMITS,
  DraftRecord,
  DraftVariables,
  PromptId,
  PromptQuery,
  RENDER_ERRORS,
  chatHeaders,
} from './shapes'

/** Messages a body may carry: a long conversation, never an unbounded one. */
export const MAX_MESSAGES = 1000
/** Tools a body may list, and tool calls an assistant message may carry. */
export const MAX_TOOLS = 128

/** OpenAI's function names: what a provider takes. */
export const FunctionName = once(() =>
  z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 of A-Z, a-z, 0-9, _ and -')),
)

/** A string of `min` to `max` characters. */
export const text = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max))

const ToolCall = once(() =>
  z.looseObject({
    id: text(1, 256),
    type: z.literal('function'),
    function: z.looseObject({ name: text(1, 64), arguments: z.string() }),
  }),
)

export const ChatMessage = once(() =>
  described(
    z.looseObject({
      role: z.enum(CHAT_ROLES),
      content: described(
        z.optional(z.union([z.string(), z.array(z.looseObject({ type: z.string().check(z.minLength(1)) })), z.null()])),
        { description: 'Text, or OpenAI content parts; an assistant message with tool calls may have none.' },
      ),
      name: z.optional(text(1, 64)),
      tool_calls: described(z.optional(z.array(ToolCall()).check(z.maxLength(MAX_TOOLS))), {
        description: 'An assistant message only.',
      }),
      tool_call_id: described(z.optional(text(1, 256)), {
        description: 'A tool message only: the call of the assistant message before it that it answers.',
      }),
    }),
    { id: 'ChatMessage' },
  ),
)

export const FunctionTool = once(() =>
  described(
    z.looseObject({
      type: z.literal('function'),
      function: z.looseObject({
        name: FunctionName(),
        description: z.optional(z.string()),
        parameters: z.optional(z.record(z.string(), z.unknown())),
        strict: z.optional(z.boolean()),
      }),
    }),
    { id: 'FunctionTool', description: "The caller's own tool: sent to the model, its calls returned untouched." },
  ),
)

/** POST /chat: the model (or LLM_DEFAULT_MODEL), the args, the conversation, and the usual OpenAI parameters. */
const ChatBody = once(() =>
  described(
    z.object({
      model: described(z.optional(z.string().check(z.minLength(1))), {
        description: 'Defaults to LLM_DEFAULT_MODEL.',
        example: 'gpt-4o-mini',
      }),
      args: z.optional(Args()),
      draft: described(z.optional(DraftRecord()), {
        description:
          "Chat with a draft of the prompt: the fields given replace the stored record's (a template, `prompt` or `messages`, replaces either), the others kept, the whole checked as a stored record is (400 as POST /api/render's). It renders exactly as POST /api/render does; the answer has no X-Prompt-Version.",
      }),
      variables: z.optional(DraftVariables()),
      messages: described(z.optional(z.array(ChatMessage()).check(z.maxLength(MAX_MESSAGES))), {
        description:
          "Appended after the rendered prompt's messages, and checked as a whole first (400 INVALID_MESSAGES naming the index and the rule): a tool message answers a call of the assistant message before it; every call is answered before the next other message; system and developer messages come before the first user message; the last message is not the assistant's unless `continue_final_message`.",
      }),
      continue_final_message: described(z.optional(z.boolean()), {
        description: 'Let the conversation end with an assistant message, for the model to continue.',
      }),
      tools: described(z.optional(z.array(z.union([text(1, 64), FunctionTool()])).check(z.maxLength(MAX_TOOLS))), {
        description:
          "The tools offered to the model: ids of the prompt's declared `tools` (the service calls them), and the caller's own function tools. Unset: all the prompt declares.",
      }),
      tool_choice: described(
        z.optional(
          z.union([
            z.enum(['none', 'auto', 'required']),
            z.looseObject({ type: z.literal('function'), function: z.object({ name: FunctionName() }) }),
          ]),
        ),
        { description: '`none`: no tools are sent at all. A forced choice holds for the first request only.' },
      ),
      parallel_tool_calls: z.optional(z.boolean()),
      max_steps: described(z.optional(z.int().check(z.gte(0))), {
        description: 'Tool rounds at most (default 4, at most CHAT_MAX_STEPS).',
        example: 4,
      }),
      temperature: z.optional(z.number()),
      max_tokens: z.optional(z.int().check(z.positive())),
      top_p: z.optional(z.number()),
      stop: z.optional(z.union([z.string(), z.array(z.string())])),
      n: z.optional(z.int().check(z.positive())),
      user: z.optional(z.string()),
      response_format: described(z.optional(z.record(z.string(), z.unknown())), {
        description: 'Unset, a prompt whose `returns` is a JSON Schema asks for JSON of it.',
      }),
      seed: z.optional(z.int()),
      stream: described(z.optional(z.boolean()), { description: "Answer with the provider's server-sent events." }),
    }),
    { id: 'ChatRequest', description: BODY_LIMITS },
  ),
)

const ChatCompletion = once(() =>
  described(z.record(z.string(), z.unknown()), {
    id: 'ChatCompletion',
    description:
      "The provider's last OpenAI chat completion (`object: chat.completion`), as it came when the prompt offers no tools and has no `returns` schema. Else with `steps` (each tool round: `{step, calls: [{id, tool, arguments, ms, outcome, result}], usage}`; arguments past 4,096 characters as the start of their text, with `arguments_chars`; `result` the text the model was sent, likewise with `result_chars`), `stopped` (`max_steps`, `deadline` or `max_bytes`, when the loop ended with calls unanswered), `tool_messages` (the answers of the service's calls, when the model also called the caller's tools) and `choices[0].message.parsed` (the answer, valid against `returns`; for `returns` in the tags format, the list of `{tag, attributes, content}`, with `parse_warnings`). Whatever the model's API (LLM_ROUTES `api`: openai, anthropic, gemini), the answer is OpenAI's.",
  }),
)

const route = defineRoute('post', '/api/prompts/{prompt_id}/chat', () => ({
  tags: ['prompts'],
  summary: 'Renders a prompt and sends it to an OpenAI-compatible LLM',
  middleware: jsonBody,
  request: {
    params: z.object({ prompt_id: PromptId() }),
    query: PromptQuery(),
    // Without an LLM (LLM_BASE_URL unset, as under `npm run dev`), 503 MISCONFIGURED says so.
    body: {
      content: {
        'application/json': {
          schema: ChatBody(),
          example: { model: 'gpt-4o-mini', args: { code: 'func main() {}' } },
        },
      },
    },
  },
  responses: {
    200: {
      description:
        'The chat completion; with `stream: true`, its chunks as server-sent events ending in [DONE], with `event: step` after each tool round, `event: parsed` (the check against `returns`) and always `event: summary` (`steps`: the count of tool rounds; `usage`: the usage of the rounds, summed; `stopped`, `tool_messages`) before [DONE], each also an empty chunk (`choices: []`); a failure ends it with `event: error` and no [DONE]',
      content: {
        'application/json': { schema: ChatCompletion() },
        'text/event-stream': { schema: z.string() },
      },
      headers: z.object({
        'X-LLM-Dropped-Parameters': described(z.optional(z.string()), {
          description: "The OpenAI parameters the model's API cannot take (LLM_ROUTES `api`), left out of the request.",
          example: 'seed, response_format',
        }),
        'Server-Timing': described(z.string(), {
          description: "The render's metrics, and `llm` (for a stream, until its first chunk).",
          example: 'redis;dur=2, tools;dur=0, render;dur=1, llm;dur=840, total;dur=843',
        }),
      }),
    },
    ...errorsOf(
      ...API_ERRORS,
      ...RENDER_ERRORS,
      'INVALID_MESSAGES',
      'LLM_REJECTED',
      'LLM_FAILED',
      'LLM_INVALID_OUTPUT',
      'CHAT_TIMEOUT',
    ),
  },
}))

/**
 * POST /api/prompts/{prompt_id}/chat: renders the prompt exactly as /render
 * does (and fails as it does, before any LLM request), checks the
 * conversation and the tools offered, then runs the chat (lib/chat): the
 * model's calls of the prompt's tools made in rounds, its answer checked
 * against the prompt's `returns`. The args never reach the provider. A
 * `draft` of the prompt, and `variables` laid over the shared ones, chat
 * exactly as they render at POST /api/render.
 */
export const chat = new Routes().openapi(route, async (c) => {
  const { args = {}, draft, variables, ...body } = c.req.valid('json')
  const promptId = c.req.valid('param').prompt_id
  const rendered = await renderRequested(c, promptId, args, { draft, variables })
  // After the render, so that every render error answers exactly as /render's.
  const context = { store: await freshStoreOf(c), settings: settingsOf(c), renderOptions: renderOptionsOf(c) }
  const answer = await answerChat(promptId, rendered, body, context)
  const headers = chatHeaders({ ...answer, timing: rendered.timing.header(), served: rendered.served })
  return new Response(answer.body, { headers })
})
