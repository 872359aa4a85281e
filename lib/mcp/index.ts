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
import { PROTOCOL_VERSION, SUPPORTED_VERSIONS } from '../tools'
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
import { RPC, RpcError, asMessage, failure, result } from './rpc'
import type { RpcAnswer, RpcMessage } from './rpc'

export type { McpContext } from './catalogue'
export { SUPPORTED_VERSIONS } from '../tools'

/** At most this many messages in one POST (a batch, as protocol versions before 2025-06-18 allow). */
export const MAX_BATCH = 32

export interface ServerInfo {
  name: string
  version: string
}

type Method = (context: McpContext, params: Record<string, unknown>) => unknown

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

/**
 * Answers a POST's body: one message or a batch. Requests get answers (an
 * array for a batch); notifications and the client's responses get none,
 * and a body of nothing else answers undefined (HTTP 202). A service error
 * becomes a JSON-RPC error carrying the service's code: InvalidParams when
 * it is the client's fault (`clientFault`), InternalError when not.
 */
export async function serveMcp(
  body: unknown,
  context: McpContext,
  server: ServerInfo,
  clientFault: (code: ErrorCode) => boolean,
): Promise<RpcAnswer | RpcAnswer[] | undefined> {
  const batch = Array.isArray(body)
  const items: unknown[] = batch ? body : [body]
  if (items.length === 0 || items.length > MAX_BATCH) {
    const problem = items.length === 0 ? 'an empty batch' : `a batch of more than ${MAX_BATCH} messages`
    return failure(null, new RpcError(RPC.INVALID_REQUEST, `${problem} is not served`))
  }
  // One at a time: each may render, and a batch is no way around the render's limits.
  const answers: RpcAnswer[] = []
  for (const item of items) {
    const answer = await answer1(asMessage(item), context, server, clientFault)
    if (answer) answers.push(answer)
  }
  if (answers.length === 0) return undefined
  return batch ? answers : answers[0]
}

async function answer1(
  message: ReturnType<typeof asMessage>,
  context: McpContext,
  server: ServerInfo,
  clientFault: (code: ErrorCode) => boolean,
): Promise<RpcAnswer | undefined> {
  if ('invalid' in message) return failure(message.id, message.invalid)
  const { id, method } = message
  if (id === undefined) return undefined
  // The log line lists each request's method, and the code of its error.
  const logged = { method: method.slice(0, 64) }
  try {
    const answer = result(id, await run(message, context, server))
    requestLog()?.append('mcp', logged)
    return answer
  } catch (e) {
    const error = asRpcError(e, clientFault)
    requestLog()?.append('mcp', { ...logged, error: error.data?.code ?? error.code })
    return failure(id, error)
  }
}

function run(message: RpcMessage, context: McpContext, server: ServerInfo): unknown {
  const { method, params } = message
  if (method === 'initialize') return initialize(params, server)
  if (!Object.hasOwn(METHODS, method)) {
    throw new RpcError(RPC.METHOD_NOT_FOUND, `method ${JSON.stringify(method.slice(0, 64))} is not served`)
  }
  return (METHODS[method] as Method)(context, params)
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
