/**
 * What both sides of MCP here share, the server (lib/mcp) and the tool
 * client (lib/tools/mcp-client.ts): the protocol versions spoken and
 * JSON-RPC's messages. Neither side imports the other.
 */

/** The version asked for (the client) or answered with by default (the server). */
export const PROTOCOL_VERSION = '2025-11-25'

/** The versions spoken: the MCP SDK's (1.32) list. */
export const SUPPORTED_VERSIONS: ReadonlySet<string> = new Set([
  PROTOCOL_VERSION,
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
])

/** JSON-RPC's request id: a string or an integer. */
export type RequestId = string | number

/** A JSON-RPC 2.0 message as sent: a request (with an id: it gets an answer) or a notification (without). */
export interface JsonRpcMessage {
  jsonrpc: '2.0'
  method: string
  params?: unknown
  id?: RequestId
}

/** A JSON-RPC 2.0 answer: a result or an error. */
export type RpcAnswer =
  | { jsonrpc: '2.0'; id: RequestId | null; result: unknown }
  | { jsonrpc: '2.0'; id: RequestId | null; error: { code: number; message: string; data?: unknown } }
