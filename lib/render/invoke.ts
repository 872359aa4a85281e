import { getTool } from '../catalog'
import type { Store } from '../store'
import type { ValueMap } from '../template'
import { ToolSession } from '../tools'
import { basePaths, baseUrlOf, loadVariables } from './context'
import type { RenderOptions } from './pipeline'

/** A tool's answer, or why it failed (the reason a render's TOOL_FAILED warning gives). */
export type Invoked = { ok: true; value: unknown } | { ok: false; reason: string }

/**
 * Calls one tool on its own, with named arguments (MCP's tools/call), by
 * the code a template's call runs: the same checks of the arguments, base
 * URL, allow-list, redirect rules, timeout and byte cap, all within the
 * render's deadline. A tool that does not exist is NOT_FOUND; a call that
 * fails is a reason, not an exception.
 */
export async function invokeTool(store: Store, id: string, args: ValueMap, options: RenderOptions): Promise<Invoked> {
  // Its reason says which bound ended the call: the tool's own timeout is another.
  const deadline = new AbortController()
  const timer = setTimeout(() => {
    const reason = `the call passed RENDER_TIMEOUT_MS (${options.deadlineMs} ms)`
    deadline.abort(new DOMException(reason, 'AbortError'))
  }, options.deadlineMs)
  let session: ToolSession | undefined
  try {
    const tool = await getTool(store, id)
    const { vars } = await loadVariables(store, basePaths([tool]))
    session = new ToolSession({ ...options.tools, signal: deadline.signal, moduleBaseUrl: (m) => baseUrlOf(vars, m) })
    // One map operand is named arguments, as `dict` gives them in a template.
    const value = await session.functionFor(tool)(args)
    const failed = session.warnings.find((w) => w.code === 'TOOL_FAILED')
    return failed ? { ok: false, reason: failed.message } : { ok: true, value }
  } finally {
    clearTimeout(timer)
    await session?.close().catch(() => undefined)
  }
}
