/**
 * The MCP server: the catalogue's prompts, tools and shared variables for
 * every MCP client, over the Streamable HTTP transport's stateless form
 * (functions/mcp.ts): each POST carries messages and is answered with JSON,
 * no session is kept, so any isolate can answer any request. The protocol
 * is spoken here rather than through the MCP SDK's server, which with its
 * validators would more than fill the Worker's whole bundle budget; the
 * tests drive it with the SDK's own client.
 */
import { ServiceError } from '../errors'
import type { ErrorCode } from '../errors'
import { describeError, requestLog } from '../log'
import { utf8Length } from '../template'
import { PROTOCOL_VERSION, SUPPORTED_VERSIONS } from './protocol'
import {
  callToolMethod,
  getPromptMethod,
  listPromptsMethod,
  listResourceTemplatesMethod,
  listResourcesMethod,
  listToolsMethod,
  readResourceMethod,
} from './catalogue'
import type { McpContext } from './catalogue'
import { NoRoom, RPC, RpcError, asMessage, failure, result } from './rpc'
import type { RpcMessage } from './rpc'

export type { McpContext } from './catalogue'
export { SUPPORTED_VERSIONS } from './protocol'

/** At most this many messages in one POST (a batch, as protocol versions before 2025-06-18 allow). */
export const MAX_BATCH = 32

export interface ServerInfo {
  name: string
  version: string
}

/** A method answers `params`; `room` is the bytes its answer may take in the POST's (MCP_MAX_BYTES). */
type Method = (context: McpContext, params: Record<string, unknown>, room: number) => unknown

const METHODS: Readonly<Record<string, Method>> = {
  ping: () => ({}),
  'prompts/list': listPromptsMethod,
  'prompts/get': getPromptMethod,
  'tools/list': listToolsMethod,
  'tools/call': callToolMethod,
  'resources/list': listResourcesMethod,
  'resources/templates/list': listResourceTemplatesMethod,
  'resources/read': readResourceMethod,
}

/** What the server offers; nothing changes under a client, so no list ever says it changed. */
const CAPABILITIES = {
  prompts: { listChanged: false },
  tools: { listChanged: false },
  resources: { subscribe: false, listChanged: false },
}

export interface ServeOptions {
  server: ServerInfo
  /** Whether an error of this code is the client's fault (InvalidParams) rather than the server's (InternalError). */
  clientFault: (code: ErrorCode) => boolean
  /** Bytes of the whole answer at most (MCP_MAX_BYTES). */
  maxBytes: number
}

/**
 * Answers a POST's body, one message or a batch, as JSON text. Requests get
 * answers (an array for a batch); notifications and the client's responses
 * get none, and a body of nothing else answers undefined (HTTP 202). A
 * service error becomes a JSON-RPC error carrying the service's code:
 * InvalidParams when it is the client's fault, InternalError when not.
 *
 * The text is at most `maxBytes` long. Answers are given in order while
 * they fit, with room kept for refusing every request after them; from the
 * first that does not fit, each request is refused (LIMIT_EXCEEDED) and the
 * ones after it are not even run. So a batch holds in memory at most the
 * budget and the one answer that passed it. (A budget too small for the
 * refusals alone, some hundred bytes each, is answered with the refusals.)
 */
export async function serveMcp(body: unknown, context: McpContext, how: ServeOptions): Promise<string | undefined> {
  const batch = Array.isArray(body)
  const items: unknown[] = batch ? body : [body]
  if (items.length === 0 || items.length > MAX_BATCH) {
    const problem = items.length === 0 ? 'an empty batch' : `a batch of more than ${MAX_BATCH} messages`
    return JSON.stringify(failure(null, new RpcError(RPC.INVALID_REQUEST, `${problem} is not served`)))
  }
  const messages = items.map(asMessage)
  const refusals = messages.map((message) => refusal(message, how))
  // A batch's text is its answers, a comma after each but the last, in brackets: counted as a comma after each, and one.
  let used = 1
  let reserved = refusals.reduce((n, text) => n + (text === undefined ? 0 : bytes(text) + 1), 0)
  let spent = false
  const answers: string[] = []
  // One at a time: each may render, and a batch is no way around the render's limits.
  for (const [i, message] of messages.entries()) {
    const refused = refusals[i]
    if (refused === undefined) continue
    reserved -= bytes(refused) + 1
    // A method that can tell its answer will not fit in the room left stops there (see NoRoom).
    let answer = spent ? undefined : await answer1(message, context, how, how.maxBytes - used - reserved - 1)
    let size = answer === undefined ? Infinity : bytes(answer.text) + 1
    if (used + size + reserved > how.maxBytes) {
      spent = true
      answer = { text: refused, error: 'LIMIT_EXCEEDED' }
      size = bytes(refused) + 1
    }
    const { text, error } = answer as { text: string; error?: unknown }
    // The log line lists each request's method, and the code of its error.
    if (!('invalid' in message))
      requestLog()?.append('mcp', { method: message.method.slice(0, 64), ...(error === undefined ? {} : { error }) })
    answers.push(text)
    used += size
  }
  if (answers.length === 0) return undefined
  return batch ? `[${answers.join(',')}]` : answers[0]
}

/**
 * The JSON text of a request's answer (its result, or its error), and the
 * code of its error; undefined when its method found it could not fit in `room`.
 */
async function answer1(
  message: ReturnType<typeof asMessage>,
  context: McpContext,
  how: ServeOptions,
  room: number,
): Promise<{ text: string; error?: unknown } | undefined> {
  if ('invalid' in message) return { text: JSON.stringify(failure(message.id, message.invalid)) }
  const id = message.id ?? null
  try {
    return { text: JSON.stringify(result(id, await run(message, context, how.server, room))) }
  } catch (e) {
    if (e instanceof NoRoom) return undefined
    const error = asRpcError(e, how.clientFault)
    return { text: JSON.stringify(failure(id, error)), error: error.data?.code ?? error.code }
  }
}

/** What a request past the budget is answered with; undefined for a message that gets no answer. */
function refusal(message: ReturnType<typeof asMessage>, how: ServeOptions): string | undefined {
  if (message.id === undefined) return undefined
  const e = new ServiceError(
    'LIMIT_EXCEEDED',
    `not answered: the answers to this POST reached MCP_MAX_BYTES (${how.maxBytes} bytes) at this request or before it`,
    { extra: { limit: 'MCP_MAX_BYTES' } },
  )
  return JSON.stringify(failure(message.id, asRpcError(e, how.clientFault)))
}

/** Bytes of JSON text as UTF-8. */
function bytes(text: string): number {
  return utf8Length(text, 0, text.length)
}

function run(message: RpcMessage, context: McpContext, server: ServerInfo, room: number): unknown {
  const { method, params } = message
  if (method === 'initialize') return initialize(params, server)
  if (!Object.hasOwn(METHODS, method)) {
    throw new RpcError(RPC.METHOD_NOT_FOUND, `method ${JSON.stringify(method.slice(0, 64))} is not served`)
  }
  return (METHODS[method] as Method)(context, params, room)
}

/** The client's protocol version when this server speaks it, else the latest it speaks. */
function initialize(params: Record<string, unknown>, server: ServerInfo) {
  const asked = params.protocolVersion
  const protocolVersion = typeof asked === 'string' && SUPPORTED_VERSIONS.has(asked) ? asked : PROTOCOL_VERSION
  return { protocolVersion, capabilities: CAPABILITIES, serverInfo: server }
}

function asRpcError(e: unknown, clientFault: (code: ErrorCode) => boolean): RpcError {
  if (e instanceof RpcError) return e
  if (e instanceof ServiceError && e.code !== 'INTERNAL') {
    const code = clientFault(e.code) ? RPC.INVALID_PARAMS : RPC.INTERNAL_ERROR
    return new RpcError(code, e.message, { code: e.code, ...e.extra })
  }
  // A bug: its details are for the log, never for the client.
  requestLog()?.set('error', { code: 'INTERNAL', message: describeError(e), stack: (e as Error)?.stack })
  return new RpcError(RPC.INTERNAL_ERROR, 'internal error', { code: 'INTERNAL' })
}
