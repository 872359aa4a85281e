import { abortable } from '../abort'
import { getPrompt } from '../catalog'
import type { Message } from '../catalog'
import { ServiceError } from '../http/errors'
import { setOwn } from '../json'
import type { Store } from '../store'
import { ExecError } from '../template'
import type { Args } from './args'
import { compile } from './compile'
import { loadVariables, missingPath, missingVariable } from './context'
import { Timing } from './timing'

export interface RenderOptions {
  /** The whole render's deadline (RENDER_TIMEOUT_MS). */
  deadlineMs: number
}

/** Something that degraded the render without failing it. */
export interface Warning {
  code: string
  message: string
  [field: string]: unknown
}

export interface Rendered {
  /** A string for a `prompt`; the messages with their content rendered for `messages`. */
  prompt: string | Message[]
  warnings: Warning[]
  timing: Timing
}

/**
 * Renders a prompt: find it, parse it (once), check and complete its args,
 * read the shared variables its templates read, then execute under the
 * deadline with missingkey=error. Every failure leaves as a ServiceError
 * carrying the service's code.
 */
export async function renderPrompt(store: Store, id: string, given: Args, options: RenderOptions): Promise<Rendered> {
  const timing = new Timing()
  const deadline = AbortSignal.timeout(options.deadlineMs)
  const deadlineAt = Date.now() + options.deadlineMs
  try {
    const prompt = await timing.measure('redis', () => abortable(getPrompt(store, id), deadline))
    const compiled = timing.measureSync('render', () => compile(prompt, []))
    const args = compiled.checkArgs(given)
    const paths = compiled.analysis.paths
    const { vars, skipped } = await timing.measure('redis', () => abortable(loadVariables(store, paths), deadline))
    // Args are data: they enter the context as values, never as template text.
    const data = vars
    setOwn(data, 'args', args)
    const missing = missingPath(data, paths)
    if (missing !== undefined) throw missingVariable(missing)

    const outputs = await timing.measure('render', () =>
      Promise.all(
        compiled.templates.map((t) => t.execute(data, { missingKey: 'error', signal: deadline, deadline: deadlineAt })),
      ),
    )
    const warnings: Warning[] = skipped.map((s) => ({ code: 'RECORD_SKIPPED', message: `${s.key} ${s.reason}`, ...s }))
    const roles = compiled.roles
    const rendered = roles
      ? outputs.map((content, i) => ({ role: roles[i] as Message['role'], content }))
      : (outputs[0] as string)
    return { prompt: rendered, warnings, timing }
  } catch (e) {
    throw asServiceError(e, deadline, options.deadlineMs)
  }
}

function asServiceError(e: unknown, deadline: AbortSignal, deadlineMs: number): unknown {
  const overdue = deadline.aborted || (e instanceof DOMException && e.name === 'TimeoutError')
  if (overdue && !(e instanceof ServiceError)) {
    return new ServiceError('RENDER_TIMEOUT', `rendering did not finish within ${deadlineMs} ms`, { cause: e })
  }
  if (e instanceof ExecError) {
    const key = /^(?:map has no entry for key|nil data; no entry for key) "(.*)"$/.exec(e.detail)
    if (key)
      return new ServiceError('MISSING_VARIABLE', e.message, {
        extra: { variable: key[1], line: e.line, column: e.column },
      })
    return new ServiceError('RENDER_FAILED', e.message, { extra: { line: e.line, column: e.column } })
  }
  return e
}
