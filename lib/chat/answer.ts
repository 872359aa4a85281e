import { findTools } from '../catalog'
import { clientFor, modelFor } from '../llm'
import { requestLog } from '../log'
import type { RenderOptions, Rendered } from '../render'
import type { Settings } from '../settings'
import type { Store } from '../store'
import { completeConversation, startConversation } from './run'
import type { ChatFields } from './run'
import { streamConversation } from './stream'

/** What POST /chat asks: the model, whether to stream, and the chat's own fields and OpenAI parameters. */
export type ChatBody = ChatFields &
  Record<string, unknown> & { model?: string | undefined; stream?: boolean | undefined }

/** A chat's answer: a completion's JSON, or its event stream, and the parameters the provider's API could not take. */
export interface ChatAnswer {
  body: string | ReadableStream<Uint8Array>
  streamed: boolean
  dropped: readonly string[]
}

/**
 * A rendered prompt sent to the model `body` names (or LLM_DEFAULT_MODEL),
 * through its route, with the prompt's tools (those it declares, or those
 * `body.tools` names, read from `store`) called in rounds: the whole chat
 * after the render, which the caller has done so that its errors are the
 * render's own. A stream's `llm` timing runs until its first chunk.
 */
export async function answerChat(
  promptId: string,
  rendered: Rendered,
  body: ChatBody,
  context: {
    store: Store
    settings: Pick<Settings, 'defaultModel' | 'llmConfigured' | 'llm' | 'chat' | 'llmRoute'>
    renderOptions: RenderOptions
  },
): Promise<ChatAnswer> {
  const { model: requested, stream: streamed = false, ...fields } = body
  const { store, settings, renderOptions } = context
  const model = modelFor(requested, settings)
  requestLog()?.set('model', model)
  const llmOptions = settings.llm
  const client = clientFor(settings.llmRoute(model), llmOptions)
  const declares = (rendered.record.tools?.length ?? 0) > 0 || fields.tools !== undefined
  const conversation = startConversation(
    {
      promptId,
      record: rendered.record,
      rendered: rendered.prompt,
      model,
      store,
      catalogue: declares ? (await findTools(store, rendered.record.tools ?? [])).items : [],
      renderOptions,
      chatOptions: settings.chat,
      llmOptions,
    },
    fields,
  )
  const answer = streamed
    ? await rendered.timing.measure('llm', () => streamConversation(conversation, client, llmOptions))
    : await completeConversation(conversation, client, llmOptions, rendered.timing)
  return { body: answer, streamed, dropped: [...(client.dropped ?? [])] }
}
