/**
 * Tools: the template functions that call other services, REST, MCP or gRPC.
 * See session.ts for how a render's calls run, arguments.ts for the
 * calling convention, and lib/egress for where their requests may go.
 */
export { DEFAULT_TOOL_MAX_BYTES, DEFAULT_TOOL_MAX_CALLS, ToolSession } from './session'
export type { Outcome, ToolCall, ToolSessionOptions, ToolWarning } from './session'
export type { Params } from './arguments'
export { dict } from './dict'
export { invokeTool, toolSession } from './invoke'
export type { InvokeOptions } from './invoke'
