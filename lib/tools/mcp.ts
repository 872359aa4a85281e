import {
  SseParser,
  cancelBody,
  decodeText,
  guardedFetch,
  parseJson,
  readBody,
  shortReason,
  statusLine,
} from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { abortable } from '../abort'
import { isObject } from '../json'
import { ToolError } from './arguments'
import type { Params } from './arguments'

const CLIENT_INFO = { name: 'ai-prompt-shell', version: '0.1.0' }
/** The protocol version asked for, and those accepted in answer (the MCP SDK's (1.32) list); the server's too (lib/mcp). */
export const PROTOCOL_VERSION = '2025-11-25'
export const SUPPORTED_VERSIONS: ReadonlySet<string> = new Set([
  PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
])

/** A server after the handshake: its URL, and the headers every later request carries. */
interface Session {
  url: URL
  headers: Record<string, string>
}

type Message = { jsonrpc: '2.0'; method: string; params?: unknown; id?: number }

/**
 * The MCP servers of one render: one session per server URL, opened on
 * first use (the `initialize` handshake), over Streamable HTTP: each message
 * is a POST, answered with JSON or with a short event stream. Every request
 * goes through the same guarded fetch as REST tools (redirects checked,
 * answers cut at the byte limit) and ends with the render (`signal`).
 * A tool call is all a render asks of a server, so this speaks that much of
 * the protocol rather than bundling the MCP SDK's client; it never opens the
 * server's standalone event stream (a GET), which a render has no use for.
 */
export class McpClients {
  readonly #sessions = new Map<string, Promise<Session>>()
  #lastId = 0

  /** `signal` ends every request of these clients: the render's end. */
  constructor(
    readonly signal: AbortSignal,
    readonly policy: EgressPolicy,
    readonly limit: ByteLimit,
  ) {}

  /** A tool's result: its structured content when the server gives one, otherwise its text. */
  async call(url: URL, tool: string, params: Params, signal: AbortSignal): Promise<unknown> {
    let result: unknown
    try {
      // The handshake is part of the call: it waits no longer than the call's own timeout.
      const session = await abortable(this.#session(url), signal)
      result = await this.#request(session, 'tools/call', { name: tool, arguments: params }, signal)
    } catch (e) {
      throw signal.aborted ? signal.reason : e
    }
    if (!isObject(result)) throw new ToolError('answered a tools/call result that is not an object')
    const text = Array.isArray(result.content)
      ? result.content
          .filter((c): c is { type: 'text'; text: string } => isObject(c) && c.type === 'text')
          .map((c) => String(c.text))
          .join('\n')
      : ''
    // The error text is meant for the caller: a short reason of it goes to the warning, none to the log.
    if (result.isError === true) throw new ToolError('answered an error', shortReason(text))
    return result.structuredContent ?? text
  }

  #session(url: URL): Promise<Session> {
    let session = this.#sessions.get(url.href)
    if (!session) {
      session = this.#open(url)
      // A failed handshake fails the calls that wait for it; it is not retried within a render.
      session.catch(() => {})
      this.#sessions.set(url.href, session)
    }
    return session
  }

  /** The handshake: `initialize`, a protocol version both sides speak, then `notifications/initialized`. */
  async #open(url: URL): Promise<Session> {
    const opening = { url, headers: {} }
    const params = { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO }
    const { result, response } = await this.#exchange(opening, this.#message('initialize', params), this.signal)
    const version = isObject(result) ? result.protocolVersion : undefined
    if (typeof version !== 'string' || !SUPPORTED_VERSIONS.has(version)) {
      throw new ToolError('answered an MCP protocol version this client does not speak', shortReason(String(version)))
    }
    const sessionId = response.headers.get('mcp-session-id')
    const session = {
      url,
      headers: { 'mcp-protocol-version': version, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
    }
    await this.#exchange(session, { jsonrpc: '2.0', method: 'notifications/initialized' }, this.signal)
    return session
  }

  async #request(session: Session, method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    return (await this.#exchange(session, this.#message(method, params), signal)).result
  }

  #message(method: string, params: unknown): Message {
    return { jsonrpc: '2.0', id: ++this.#lastId, method, params }
  }

  /**
   * POSTs one message. The answer is read within the byte limit, so that
   * one too big fails its call at once and by name; an error answer is told
   * by its status line. A notification's answer (202) has nothing to read;
   * a request's holds its reply, alone or among the server's other messages.
   */
  async #exchange(
    session: Session,
    message: Message,
    signal: AbortSignal,
  ): Promise<{ result: unknown; response: Response }> {
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...session.headers,
    })
    const init = {
      method: 'POST',
      headers,
      body: JSON.stringify(message),
      signal: AbortSignal.any([signal, this.signal]),
    }
    const response = await guardedFetch(session.url, init, this.policy)
    if (!response.ok) {
      await cancelBody(response)
      throw new ToolError(`answered ${statusLine(response)}`)
    }
    if (message.id === undefined) {
      await cancelBody(response)
      return { result: undefined, response }
    }
    const id = message.id
    const reply = isEventStream(response.headers.get('content-type') ?? '')
      ? await replyInStream(response, id, this.limit, init.signal)
      : parsedMessages(decodeText(await readBody(response, this.limit, init.signal))).find((m) => isReply(m, id))
    if (!isObject(reply)) throw new ToolError(`answered no reply to ${message.method}`)
    if (isObject(reply.error)) {
      const reason = typeof reply.error.message === 'string' ? reply.error.message : ''
      throw new ToolError(`answered MCP error ${String(reply.error.code)}`, shortReason(reason))
    }
    return { result: reply.result, response }
  }
}

function isEventStream(contentType: string): boolean {
  return /^\s*text\/event-stream/i.test(contentType)
}

function isReply(m: unknown, id: number): m is Record<string, unknown> {
  return isObject(m) && m.id === id && ('result' in m || 'error' in m)
}

function parsedMessages(body: string): unknown[] {
  let parsed: unknown
  try {
    parsed = parseJson(body)
  } catch {
    throw new ToolError('answered JSON that does not parse')
  }
  return Array.isArray(parsed) ? parsed : [parsed]
}

/**
 * The reply to `id` in an event stream, its `message` events' data read
 * as they arrive: the stream may stay open after the reply (the spec says
 * SHOULD close), so the reply's event ends the read. An event whose data
 * does not parse fails the call. readBody bounds the stream at `limit`,
 * and so the one event open in it.
 */
async function replyInStream(response: Response, id: number, limit: ByteLimit, signal: AbortSignal): Promise<unknown> {
  const events = new SseParser(limit)
  let reply: unknown
  await readBody(response, limit, signal, (chunk) =>
    events.push(chunk).some((event) => {
      if (event.name !== undefined && event.name !== 'message') return false
      reply = parsedMessages(event.data).find((m) => isReply(m, id))
      return reply !== undefined
    }),
  )
  return reply
}
