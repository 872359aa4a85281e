import type { ChatMessage, ToolCallSpec } from '../llm'

/**
 * What a chat's conversation may hold, which every request re-sends whole:
 * the prompt's and the caller's messages it starts with, then what the
 * loop adds, the model's turns (their text, their calls' arguments), the
 * tools' answers, the requests to fix an answer. LLM_MAX_BYTES of it,
 * counted in characters of text (the strings' UTF-16 units), so that no
 * model and no tool can make the next request, and every one after it,
 * grow without bound.
 */
export class Budget {
  #left: number

  /** `start`: the messages the conversation starts with, which take their share whatever it is. */
  constructor(
    readonly total: number,
    start: readonly ChatMessage[],
  ) {
    this.#left = Math.max(
      0,
      start.reduce((left, message) => left - turnChars(message), total),
    )
  }

  get left(): number {
    return this.#left
  }

  /** Takes `chars` when they fit, and says so; takes nothing when they do not. */
  take(chars: number): boolean {
    if (chars > this.#left) return false
    this.#left -= chars
    return true
  }
}

/**
 * What a tool call costs besides its id, name and arguments: its framing,
 * and the tool message that answers it at the least (an error's words), so
 * that the answer of a call whose turn was taken always fits.
 */
const CALL_CHARS = 256

/** The characters a model's turn adds to the conversation: its text, and each call with the least of its answer. */
export function turnChars(message: ChatMessage): number {
  let chars = textOf(message.content).length
  for (const call of message.tool_calls ?? []) {
    const { name, arguments: args } = call.function
    chars += CALL_CHARS + 2 * lengthOf(call.id) + lengthOf(name) + lengthOf(args)
  }
  return chars
}

/** The characters of a call's arguments, as the next request would re-send them. */
export function argumentChars(call: ToolCallSpec): number {
  return lengthOf(call.function.arguments)
}

/** A provider's field as it is re-sent: a string's length, anything else's as JSON (a provider may break the shape). */
function lengthOf(value: unknown): number {
  return typeof value === 'string' ? value.length : (JSON.stringify(value)?.length ?? 0)
}

/** A message's text: its string, or its text parts joined. */
export function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content
  return (content ?? []).map((part) => (typeof part.text === 'string' ? part.text : '')).join('')
}
