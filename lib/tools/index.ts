/**
 * Tools: the template functions that call other services, REST or MCP.
 * See session.ts for how a render's calls run, and arguments.ts for the
 * calling convention.
 */
export { ToolSession } from './session'
export type { ToolSessionOptions, ToolWarning } from './session'
export { dict } from './dict'
