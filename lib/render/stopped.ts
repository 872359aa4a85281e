import { ServiceError } from '../errors'
import { isGenerational } from '../store'
import type { Store } from '../store'
import { isStepBudget } from '../template'
import type { Timing } from './timing'

/** Where a render's time goes, as its RENDER_TIMEOUT names it (`phase`). */
export type Phase = 'store' | 'tools' | 'render'

/** What a stopped render had spent: its Timing, its tool calls' time (in flight ones to now), and the store it read. */
export interface Spent {
  timing: Timing
  toolsMs: number
  store: Store
  /** The phase it was waiting on when the deadline came, when known (a read of the store). */
  waiting?: Phase
}

/**
 * Steps of execution a render may take per millisecond of its deadline:
 * about what this engine walks in that time (4,000 to 5,000 a ms in workerd
 * on the bench's machine). Where the clock stands still during CPU work
 * (deployed Workers), the budget is what ends a runaway template, near its
 * deadline (issue 27's row 4 ends in 550 ms of a 500 ms deadline).
 */
export const STEPS_PER_MS = 5000

/**
 * Why a render that stopped before its end stopped, as a ServiceError:
 * its step budget, or its deadline, with where the time went. Undefined
 * when `e` is neither (the caller words it).
 */
export function stoppedEarly(
  e: unknown,
  deadline: AbortSignal | undefined,
  deadlineMs: number,
  spent: Spent,
): ServiceError | undefined {
  if (e instanceof ServiceError) return undefined
  if (isStepBudget(e)) return stepBudget(deadlineMs, spent.timing, e)
  const overdue = deadline?.aborted === true || (e instanceof DOMException && e.name === 'TimeoutError')
  return overdue ? renderTimeout(deadlineMs, spent, e) : undefined
}

/**
 * The step budget ran out: the template does more work than its deadline
 * allows (in deployed Workers, whose clock stands still during CPU work,
 * that is what ends it), whatever the clock says.
 */
function stepBudget(deadlineMs: number, timing: Timing, cause: unknown): ServiceError {
  const maxSteps = deadlineMs * STEPS_PER_MS
  // Deployed, the clock stands still during CPU work: no time to tell then.
  const elapsed = timing.report().total_ms
  const after = elapsed > 0 ? ` after ${elapsed} ms` : ''
  return new ServiceError(
    'RENDER_TIMEOUT',
    `rendering stopped at its step budget${after}: more than ${maxSteps} steps ` +
      `(${STEPS_PER_MS} a ms of RENDER_TIMEOUT_MS, ${deadlineMs} ms); the template's loops, calls or strings do too much work`,
    { cause, extra: { budget: 'steps', limit: maxSteps } },
  )
}

/**
 * The deadline came first: the error says which phase took the time (the
 * one it was waiting on, else the longest), then the others that took any:
 * "did not finish within 500 ms: 430 ms reading the store (14 reads not
 * cached), 60 ms rendering". Rendering's time is the template's own, less
 * the time it waited for tools.
 */
export function renderTimeout(deadlineMs: number, spent: Spent, cause: unknown): ServiceError {
  const { redis = 0, render = 0 } = spent.timing.report().phases
  const ms: Record<Phase, number> = { store: redis, tools: spent.toolsMs, render: Math.max(0, render - spent.toolsMs) }
  const longest = (['store', 'tools', 'render'] as const).reduce((a, b) => (ms[b] > ms[a] ? b : a))
  const phase = spent.waiting ?? longest
  const missed = isGenerational(spent.store) ? spent.store.missed : 0
  const words: Record<Phase, string> = {
    store: `${ms.store} ms reading the store${missed > 0 ? ` (${missed} ${missed === 1 ? 'read' : 'reads'} not cached)` : ''}`,
    tools: `${ms.tools} ms waiting for tools`,
    render: `${ms.render} ms rendering`,
  }
  const others = (['store', 'tools', 'render'] as const).filter((p) => p !== phase && ms[p] > 0)
  others.sort((a, b) => ms[b] - ms[a])
  const where = [phase, ...others].map((p) => words[p]).join(', ')
  return new ServiceError('RENDER_TIMEOUT', `rendering did not finish within ${deadlineMs} ms: ${where}`, {
    cause,
    extra: { phase },
  })
}
