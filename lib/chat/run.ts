/**
 * A chat's conversation started from a rendered prompt and a caller's body,
 * and run plainly to its answer (stream.ts runs it streamed).
 */
import type { PromptRecord, Tool } from '../catalog'
import { turn } from '../abort'
import { ServiceError } from '../errors'
import { complete } from '../llm'
import type { ChatMessage, FunctionTool, LlmClient, LlmOptions } from '../llm'
import type { RenderOptions, Rendered } from '../render'
import type { Store } from '../store'
import { Conversation } from './conversation'
import { checkConversation } from './messages'
import { DEFAULT_STEPS } from './options'
import type { ChatOptions } from './options'
import { returnsSchema } from './returns'
import { returnsTags } from './tags'
import { offeredTools } from './offered-tools'

/** The chat fields of a body besides the OpenAI parameters passed on. */
export interface ChatFields {
  messages?: ChatMessage[] | undefined
  tools?: (string | FunctionTool)[] | undefined
  max_steps?: number | undefined
  continue_final_message?: boolean | undefined
  n?: number | undefined
  tool_choice?: unknown
}

/** What a chat starts from: the prompt rendered, where its tools live, and the configuration. */
export interface ChatSetup {
  promptId: string
  record: PromptRecord
  rendered: Rendered['prompt']
  model: string
  store: Store
  catalogue: readonly Tool[]
  renderOptions: RenderOptions
  chatOptions: ChatOptions
  llmOptions: LlmOptions
}

/**
 * Checks a chat's body against the prompt and starts its conversation:
 * the messages (400 INVALID_MESSAGES), the tools offered, `max_steps`
 * within CHAT_MAX_STEPS. Nothing has been sent yet.
 */
export function startConversation(setup: ChatSetup, body: ChatFields & Record<string, unknown>): Conversation {
  const { messages: given = [], tools, max_steps: steps, continue_final_message: continueLast, ...parameters } = body
  const { promptId, record, rendered, model, chatOptions } = setup
  if (steps !== undefined && steps > chatOptions.maxSteps) {
    throw new ServiceError('BAD_REQUEST', `max_steps is ${steps}, more than CHAT_MAX_STEPS (${chatOptions.maxSteps})`)
  }
  const prompt: ChatMessage[] =
    typeof rendered === 'string' ? [{ role: 'user', content: rendered }] : rendered.map((m) => ({ ...m }))
  checkConversation(prompt, given, continueLast === true)
  const offered = offeredTools(record.tools ?? [], tools, body.tool_choice, setup.catalogue)
  const returns = returnsSchema(record)
  const tags = returnsTags(record)
  if ((body.n ?? 1) > 1 && (offered.ours.size > 0 || returns || tags)) {
    throw new ServiceError(
      'BAD_REQUEST',
      'n must be 1 when the prompt offers tools or has a returns schema or tags: the loop follows one answer',
    )
  }
  const plan = {
    promptId,
    model,
    parameters,
    messages: [...prompt, ...given],
    offered,
    returns,
    tags,
    maxSteps: steps ?? Math.min(DEFAULT_STEPS, chatOptions.maxSteps),
  }
  return new Conversation(plan, setup.store, setup.renderOptions, chatOptions, setup.llmOptions.maxBytes)
}

/**
 * Runs a conversation to its answer: the provider's last chat completion,
 * as the SDK read it when the service adds nothing to it, else with `steps` (and
 * `stopped`, `tool_messages`) and `choices[0].message.parsed`.
 */
export async function completeConversation(
  conversation: Conversation,
  client: LlmClient,
  options: LlmOptions,
  timing: Rendered['timing'],
): Promise<string> {
  try {
    for (;;) {
      const request = conversation.request()
      const completion = await timing.measure('llm', () => complete(client, request, options, conversation.deadline))
      const choice = completion.choices[0] as (typeof completion.choices)[number]
      // Reading, checking and writing an answer of megabytes are each tens of ms: other requests go between.
      await turn()
      const next = await conversation.next(choice.message, completion.usage, true)
      if (next.kind === 'again') continue
      if (!conversation.extended) return JSON.stringify(completion)
      if (next.checked?.ok) {
        choice.message.parsed = next.checked.value
        if (next.checked.warnings) choice.message.parse_warnings = next.checked.warnings
      }
      await turn()
      return JSON.stringify({ ...completion, ...conversation.answerFields(next) })
    }
  } finally {
    timing.addTools(conversation.toolsMs, [])
    await conversation.close()
  }
}
