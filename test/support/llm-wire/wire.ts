// What the LLM server's formats share: the answer its behaviours make before
// a format renders it, what can go wrong, and the contract each format
// (openai.ts, anthropic.ts, gemini.ts) fulfils. The behaviours themselves
// (which model does what, scripts, records) are llm-server.ts's, once for all.
import type { IncomingHttpHeaders } from 'node:http'

export type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number }

/** The token counts every answer reports unless a script says otherwise; each format words them its own way. */
export const USAGE = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } as const

/** A tool call a scripted answer asks for; `arguments` goes out as it is where the format carries text. */
export interface ScriptedToolCall {
  id: string
  name: string
  arguments: string
}

/** An answer as the behaviours make it, in OpenAI's terms, which each format translates. */
export interface Reply {
  /** null when the answer has no text (tool calls only). */
  content: string | null
  toolCalls: ScriptedToolCall[]
  /** OpenAI's finish reason: `stop`, `tool_calls`, `length`, or whatever a script says. */
  finishReason: string
  usage: Usage
}

/** An answer to stream: its text already in the pieces the stream sends, made as they are sent (big-N's are huge). */
export interface StreamedReply extends Omit<Reply, 'content'> {
  /** null when the answer has no text; an empty text has no pieces. */
  pieces: Iterable<string> | null
}

/**
 * What went wrong, as the behaviours name it; each format answers it with
 * its own status and body. A number is a scripted status (400 to 599).
 */
export type Trouble =
  'invalid' | 'no-route' | 'no-method' | 'missing-model' | 'rate-limited' | 'failed' | 'overloaded' | number

const STATUSES: Record<Exclude<Trouble, number>, number> = {
  invalid: 400,
  'no-route': 404,
  'no-method': 405,
  'missing-model': 404,
  'rate-limited': 429,
  failed: 500,
  overloaded: 503,
}

/** The status most formats give a trouble (Anthropic says overloaded with its own 529). */
export function statusOf(trouble: Trouble): number {
  return typeof trouble === 'number' ? trouble : STATUSES[trouble]
}

/** What a format reads from a request: the model and whether a stream is asked for, or why it refuses it. */
export type WireRequest = { model: string; streamed: boolean } | { refused: string; trouble?: Trouble }

/** One of the wire formats the server speaks. */
export interface Wire {
  /** Whether a path is one of this format's routes (POST only). */
  serves(pathname: string): boolean
  /**
   * The request's model and whether it asks for a stream, or why the format refuses it (a 400 unless `trouble`
   * says otherwise); a refused request is neither recorded nor counted.
   */
  read(url: URL, headers: IncomingHttpHeaders, body: Record<string, unknown>): WireRequest
  /** Request headers worth recording beside `authorization`: those a client of this format must send. */
  headers: readonly string[]
  /** What the echo answers: `echo: ` and the text of the last message, as this format carries it. */
  echo(body: Record<string, unknown>): string
  /** An error's status and body. */
  error(trouble: Trouble, message: string): [status: number, body: unknown]
  /** A whole answer's JSON body; throws when the format cannot carry the reply. */
  answer(model: string, reply: Reply): unknown
  /**
   * A streamed answer's server-sent events, each as written, made as they are sent; throws at once (before any
   * event) when the format cannot carry the reply. `body` is the request's, for what it asks of the stream.
   */
  events(model: string, reply: StreamedReply, body: Record<string, unknown>): Iterable<string>
  /** How many events stream-cut sends before the socket is destroyed: through the first piece of text. */
  cutAfter: number
  /** How many events stream-stall sends before it falls silent. */
  stallAfter: number
  /** A 200 body that is this format's answer cut short: malformed-N's. */
  malformed: string
  /** The start and end of this format's 400 body, its message left out: reject-big-N's and reject-stall's. */
  rejected: readonly [head: string, tail: string]
}

/**
 * Whether an answer carries a text block (part): when it has text, or nothing else to say. Anthropic and Gemini
 * have no null content, so an answer of tool calls only leaves the text out.
 */
export function hasText(content: string | null, toolCalls: readonly unknown[]): boolean {
  return (content ?? '') !== '' || toolCalls.length === 0
}

/** The streamed pieces of a text: one word each, with the whitespace after it, so they join back into the text. */
export function echoWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? [text]
}

/**
 * A tool call's arguments as streamed: in two pieces split at the middle code
 * point, so a client must join pieces that are no JSON on their own.
 */
export function pieces(args: string): string[] {
  const points = Array.from(args)
  if (points.length < 2) return points.length === 0 ? [] : [args]
  const middle = points.length >> 1
  return [points.slice(0, middle).join(''), points.slice(middle).join('')]
}

/** A tool call's arguments as an object, for formats that carry objects, not text; throws when they are none. */
export function argumentsObject(call: ScriptedToolCall, format: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(call.arguments)
  } catch {
    parsed = undefined
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(
      `the scripted arguments of tool call ${call.id} are no JSON object, which ${format} cannot carry: ${call.arguments}`,
    )
  }
  return parsed as Record<string, unknown>
}

/** The text of a message's content: a string, or the text of its parts that carry text. */
export function textOf(content: unknown, partText: (part: Record<string, unknown>) => string): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((part: unknown) =>
      part !== null && typeof part === 'object' ? partText(part as Record<string, unknown>) : '',
    )
    .join('')
}
