import { ServiceError } from '../errors'
import type { ChatMessage } from '../llm'

/** The rules a conversation keeps; a violation names one, and the index of the caller's message that breaks it. */
export type MessageRule =
  'content-required' | 'tool-answers-call' | 'calls-answered' | 'system-first' | 'ends-with-assistant'

/**
 * Checks the whole conversation before anything is sent: the rendered
 * prompt's messages, then the caller's. Providers reject a broken sequence
 * with a 400 that names neither the rule nor the message, after the render
 * and a round trip; here the caller learns both at once, as 400
 * INVALID_MESSAGES with `index` (in the caller's `messages`) and `rule`.
 *
 * The rendered part is its author's: its order is not judged, but a caller's
 * system message after its user message is. A conversation may end with an
 * assistant message only when the caller asks to continue it.
 */
export function checkConversation(
  rendered: readonly ChatMessage[],
  given: readonly ChatMessage[],
  continueLast: boolean,
): void {
  const offset = rendered.length
  const fail = (at: number, rule: MessageRule, problem: string): never => {
    const index = at - offset
    throw new ServiceError('INVALID_MESSAGES', `messages[${index}] ${problem} (${rule})`, { extra: { index, rule } })
  }
  const all = [...rendered, ...given]
  let seenUser = false
  // The tool calls of the assistant message before, each answered or not, until a message other than a tool's.
  let open: { at: number; answered: Map<string, boolean> } | undefined
  const close = (at: number): void => {
    for (const [id, answered] of open?.answered ?? []) {
      if (!answered) {
        const next = at < all.length ? `before messages[${at - offset}]` : 'before the conversation ends'
        fail(open?.at ?? at, 'calls-answered', `has tool call '${id}', which no tool message answers ${next}`)
      }
    }
    open = undefined
  }
  for (const [at, m] of all.entries()) {
    if (at < offset) {
      seenUser ||= m.role === 'user'
      continue
    }
    if (m.role === 'tool') {
      const id = m.tool_call_id ?? ''
      const answered = open?.answered.get(id)
      if (answered === undefined) {
        fail(at, 'tool-answers-call', `answers tool call '${id}', which the assistant message before it did not make`)
      }
      if (answered) fail(at, 'tool-answers-call', `answers tool call '${id}' a second time`)
      open?.answered.set(id, true)
      if (!hasContent(m)) fail(at, 'content-required', 'has no content: a tool message carries the answer')
      continue
    }
    close(at)
    if (!hasContent(m) && !(m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0)) {
      fail(at, 'content-required', `has no content${m.role === 'assistant' ? ' and no tool calls' : ''}`)
    }
    if ((m.role === 'system' || m.role === 'developer') && seenUser) {
      fail(at, 'system-first', `is a ${m.role} message after a user message: instructions come first`)
    }
    seenUser ||= m.role === 'user'
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const answered = new Map<string, boolean>()
      for (const call of m.tool_calls) {
        if (answered.has(call.id)) fail(at, 'tool-answers-call', `has two tool calls with id '${call.id}'`)
        answered.set(call.id, false)
      }
      open = { at, answered }
    }
  }
  close(all.length)
  const last = given.at(-1)
  if (last?.role === 'assistant' && !continueLast) {
    fail(
      all.length - 1,
      'ends-with-assistant',
      'is an assistant message at the end: set continue_final_message to have the model continue it',
    )
  }
}

function hasContent(m: ChatMessage): boolean {
  return typeof m.content === 'string' || (Array.isArray(m.content) && m.content.length > 0)
}
