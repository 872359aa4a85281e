/**
 * What both sides of MCP here share: the protocol versions spoken, by the
 * server (lib/mcp) and by the tool client (lib/tools/mcp-client.ts), and JSON-RPC's
 * request id. Neither side imports the other.
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
