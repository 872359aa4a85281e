// Why a render stopped early, as its RENDER_TIMEOUT says: the step budget, or the deadline and where the time went.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ServiceError } from '../../lib/errors'
import { stoppedEarly } from '../../lib/render/stopped'
import { Timing } from '../../lib/render/timing'
import { EmbeddedStore } from '../../lib/store'
import { parse } from '../../lib/template'

afterEach(() => vi.useRealTimers())

const store = new EmbeddedStore([])

/** The error the engine ends an execution with once past `maxSteps`. */
async function budgetError(maxSteps: number): Promise<unknown> {
  return parse('t', '{{range 1000}}{{end}}')
    .execute({}, { maxSteps })
    .then(
      () => expect.unreachable(),
      (e: unknown) => e,
    )
}

/** A Timing whose phases took these many ms, the clock moved by hand. */
async function spent(ms: { redis?: number; render?: number }): Promise<Timing> {
  vi.useFakeTimers({ toFake: ['Date'] })
  const timing = new Timing()
  await timing.measure('redis', async () => vi.setSystemTime(Date.now() + (ms.redis ?? 0)))
  timing.measureSync('render', () => vi.setSystemTime(Date.now() + (ms.render ?? 0)))
  return timing
}

describe('a render stopped early', () => {
  it('by the step budget says it was the step budget, and which, not that the deadline passed', async () => {
    const e = stoppedEarly(await budgetError(10), undefined, 100, { timing: await spent({}), toolsMs: 0, store })
    expect(e).toBeInstanceOf(ServiceError)
    expect({ code: e?.code, message: e?.message, extra: e?.extra }).toEqual({
      code: 'RENDER_TIMEOUT',
      message:
        'rendering stopped at its step budget: more than 500000 steps (5000 a ms of RENDER_TIMEOUT_MS, 100 ms); ' +
        "the template's loops, calls or strings do too much work",
      extra: { budget: 'steps', limit: 500000 },
    })
    // Where the clock moves (locally), how long it took, which is not the deadline.
    const timing = await spent({ redis: 16, render: 250 })
    const local = stoppedEarly(await budgetError(10), undefined, 500, { timing, toolsMs: 0, store })
    expect(local?.message).toMatch(/^rendering stopped at its step budget after 266 ms: more than 2500000 steps /)
  })

  it('by the deadline says which phase took the time, the longest first', async () => {
    const timing = await spent({ redis: 430, render: 60 })
    const e = stoppedEarly(AbortSignal.abort().reason, AbortSignal.abort(), 500, { timing, toolsMs: 0, store })
    expect({ code: e?.code, message: e?.message, extra: e?.extra }).toEqual({
      code: 'RENDER_TIMEOUT',
      message: 'rendering did not finish within 500 ms: 430 ms reading the store, 60 ms rendering',
      extra: { phase: 'store' },
    })
  })

  it('counts the time waiting for tools apart from rendering, and names the phase it was waiting on first', async () => {
    const timing = await spent({ redis: 20, render: 480 })
    const overdue = new DOMException('the execution passed its deadline', 'TimeoutError')
    const e = stoppedEarly(overdue, undefined, 500, { timing, toolsMs: 450, store })
    expect({ message: e?.message, extra: e?.extra }).toEqual({
      message:
        'rendering did not finish within 500 ms: 450 ms waiting for tools, 30 ms rendering, 20 ms reading the store',
      extra: { phase: 'tools' },
    })
    const waiting = stoppedEarly(overdue, undefined, 500, { timing, toolsMs: 450, store, waiting: 'store' })
    expect(waiting?.extra).toEqual({ phase: 'store' })
    expect(waiting?.message).toMatch(/^rendering did not finish within 500 ms: 20 ms reading the store, 450 ms/)
  })

  it('leaves any other failure to the caller', async () => {
    const timing = new Timing()
    expect(stoppedEarly(new Error('x'), undefined, 500, { timing, toolsMs: 0, store })).toBeUndefined()
    const own = new ServiceError('NOT_FOUND', 'x')
    expect(stoppedEarly(own, AbortSignal.abort(), 500, { timing, toolsMs: 0, store })).toBeUndefined()
  })
})
