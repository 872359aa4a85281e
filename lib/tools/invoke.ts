import { basePaths, baseUrlOf, getTool, loadVariables } from '../catalog'
import type { Tool } from '../catalog'
import type { Store } from '../store'
import type { Params } from './arguments'
import { ToolSession } from './session'
import type { Outcome, ToolSessionOptions } from './session'

/** What calling tools needs of a render's options: lib/render's RenderOptions extends it. */
export interface InvokeOptions {
  /** RENDER_TIMEOUT_MS: every call ends by it. */
  deadlineMs: number
  /** ENVIRON_MAX_BYTES: the shared variables read for the modules' base URLs. */
  environMaxBytes: number
  tools: Omit<ToolSessionOptions, 'signal' | 'moduleBaseUrl'>
}

/**
 * A session for calling `tools` outside any template (a model's tool calls,
 * MCP's tools/call), set up as a render's is: the base URLs of their
 * modules read from the shared variables, the render's limits, and
 * `signal` as the deadline that ends every call.
 */
export async function toolSession(
  store: Store,
  tools: readonly Tool[],
  options: InvokeOptions,
  signal: AbortSignal,
): Promise<ToolSession> {
  const { vars } = await loadVariables(store, basePaths(tools), options.environMaxBytes)
  return new ToolSession({ ...options.tools, signal, moduleBaseUrl: (m) => baseUrlOf(vars, m) })
}

/**
 * Calls one tool on its own, with named arguments (MCP's tools/call), by
 * the code a template's call runs: the same checks of the arguments, base
 * URL, allow-list, redirect rules, timeout and byte cap, all within the
 * render's deadline. A tool that does not exist is NOT_FOUND; a call that
 * fails is a reason, not an exception.
 */
export async function invokeTool(store: Store, id: string, args: Params, options: InvokeOptions): Promise<Outcome> {
  // Its reason says which bound ended the call: the tool's own timeout is another.
  const deadline = new AbortController()
  const timer = setTimeout(() => {
    const reason = `the call passed RENDER_TIMEOUT_MS (${options.deadlineMs} ms)`
    deadline.abort(new DOMException(reason, 'AbortError'))
  }, options.deadlineMs)
  let session: ToolSession | undefined
  try {
    const tool = await getTool(store, id)
    session = await toolSession(store, [tool], options, deadline.signal)
    return await session.invoke(tool, args)
  } finally {
    clearTimeout(timer)
    await session?.close().catch(() => undefined)
  }
}
