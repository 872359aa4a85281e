import {
  SseParser,
  TooLargeError,
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
import { PROTOCOL_VERSION, SUPPORTED_VERSIONS } from '../mcp/protocol'
import type { JsonRpcMessage } from '../mcp/protocol'
import { ToolError } from './arguments'
import type { Params } from './arguments'

const CLIENT_INFO = { name: 'ai-prompt-shell', version: '0.1.0' }

/** A server after the handshake: its URL, and the headers every later request carries. */
interface Session {
  url: URL
  headers: Record<string, string>
}

type Message = JsonRpcMessage & { id?: number }

/** How a request given up is cancelled at its server, after the call (and maybe the render) ended. */
export interface Cancelling {
  /** TOOL_TIMEOUT_MS: the bound on the cancellation's own POST. */
  timeoutMs: number
  /** The request's ExecutionContext.waitUntil, so the Worker's answer does not cut the POST short; none outside one. */
  waitUntil: ((p: Promise<unknown>) => void) | undefined
}

/**
 * The MCP servers of one render: one session per server URL, opened on
 * first use (the `initialize` handshake), over Streamable HTTP: each message
 * is a POST, answered with JSON or with a short event stream. Every request
 * goes through the same guarded fetch as REST tools (redirects checked,
 * answers cut at the byte limit) and ends with the render (`signal`).
 * A tool call is all a render asks of a server, so this speaks that much of
 * the protocol rather than bundling the MCP SDK's client; it never opens the
 * server's standalone event stream (a GET), which a render has no use for.
 * A tools/call given up before its reply (its timeout, the render's end, an
 * event stream past the byte limit) is cancelled at the server
 * (`notifications/cancelled`), so that it stops working for no one.
 */
export class McpClients {
  readonly #sessions = new Map<string, Promise<Session>>()
  #lastId = 0

  /** `signal` ends every request of these clients: the render's end. */
  constructor(
    readonly signal: AbortSignal,
    readonly policy: EgressPolicy,
    readonly limit: ByteLimit,
    readonly cancelling: Cancelling,
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
   * A request given up while the server may still work on it is cancelled
   * there; `initialize` never is (the spec forbids it).
   */
  async #exchange(
    session: Session,
    message: Message,
    signal: AbortSignal,
  ): Promise<{ result: unknown; response: Response }> {
    const both = AbortSignal.any([signal, this.signal])
    // From its POST until its reply, or an answer saying the server is done with it.
    let inProgress = message.id !== undefined && message.method !== 'initialize' && !both.aborted
    try {
      const response = await this.#post(session, message, both)
      if (!response.ok) {
        inProgress = false
        await cancelBody(response)
        throw new ToolError(`answered ${statusLine(response)}`)
      }
      if (message.id === undefined) {
        await cancelBody(response)
        return { result: undefined, response }
      }
      const id = message.id
      const stream = isEventStream(response.headers.get('content-type') ?? '')
      // A JSON answer comes once the server is done; only an event stream may come while it works.
      inProgress &&= stream
      const reply = stream
        ? await replyInStream(response, id, this.limit, both)
        : parsedMessages(decodeText(await readBody(response, this.limit, both))).find((m) => isReply(m, id))
      // Read to its reply or its end: whatever fails from here, the server is done with the request.
      inProgress = false
      if (!isObject(reply)) throw new ToolError(`answered no reply to ${message.method}`)
      if (isObject(reply.error)) {
        const reason = typeof reply.error.message === 'string' ? reply.error.message : ''
        throw new ToolError(`answered MCP error ${String(reply.error.code)}`, shortReason(reason))
      }
      return { result: reply.result, response }
    } catch (e) {
      // Only this client's giving up: an answer that failed in any other way ended the request there.
      if (inProgress && message.id !== undefined && (both.aborted || e instanceof TooLargeError)) {
        this.#cancel(session, message.id, this.#givenUp(e, signal))
      }
      throw e
    }
  }

  #post(session: Session, message: Message, signal: AbortSignal): Promise<Response> {
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...session.headers,
    })
    return guardedFetch(session.url, { method: 'POST', headers, body: JSON.stringify(message), signal }, this.policy)
  }

  /**
   * Tells the server a request's reply is no longer wanted. Best effort and
   * at most once (a request fails once): bounded by its own timeout, as the
   * render's signal may already have ended, kept alive past the Worker's
   * answer by waitUntil, and whatever becomes of it is ignored.
   */
  #cancel(session: Session, requestId: number, reason: string): void {
    const params = { requestId, reason }
    const notification: Message = { jsonrpc: '2.0', method: 'notifications/cancelled', params }
    const sent = this.#post(session, notification, AbortSignal.timeout(this.cancelling.timeoutMs))
      .then(cancelBody)
      .catch(() => undefined)
    try {
      this.cancelling.waitUntil?.(sent)
    } catch {
      // Outside a request's context (a test's app.request) there is none to keep it: it runs on its own.
    }
  }

  /** Why a request was given up, as the notification says it: the byte limit, or which bound ended it. */
  #givenUp(e: unknown, call: AbortSignal): string {
    if (e instanceof TooLargeError) return `its answer passed ${e.limit.name} (${e.limit.bytes} bytes)`
    const ended = this.signal.aborted ? this.signal : call
    const reason: unknown = ended.reason
    if (reason instanceof DOMException && reason.name === 'AbortError') return reason.message
    return ended === call
      ? `the call passed TOOL_TIMEOUT_MS (${this.cancelling.timeoutMs} ms)`
      : 'the render passed its deadline'
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
