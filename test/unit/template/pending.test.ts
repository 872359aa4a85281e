// What pending (async) values may cost one execution: however many calls a
// template makes, it holds a bounded number of pending things at once, and
// each costs steps of the budget. Counted, never timed: the Promises made
// through `then` and not yet settled (every Promise the engine makes from a
// pending value is one), the wrappers made for a returned thenable (each is one
// call of its `then`), and the steps the budget allows.
import { afterEach, describe, expect, it } from 'vitest'
import { ExecError, parse } from '../../../lib/template'
import type { TemplateFunction, Value } from '../../../lib/template'
import { MAX_PENDING } from '../../../lib/template/costs'

/** Counts the Promises made by `then` (and so by `catch` and Promise.all) until they settle; `most` at once. */
function countPending() {
  const then = Promise.prototype.then
  let live = 0
  let most = 0
  const settled = () => {
    live--
  }
  Promise.prototype.then = function (this: Promise<unknown>, ...args: Parameters<typeof then>) {
    const made = then.apply(this, args)
    most = Math.max(most, ++live)
    then.call(made, settled, settled)
    return made
  } as typeof then
  restore = () => {
    Promise.prototype.then = then
  }
  return {
    get most() {
      return most
    },
  }
}

let restore = () => {}
afterEach(() => {
  restore()
  restore = () => {}
})

/** What the engine made of a pending value: each waiting operation a Promise, and its rejection handler another. */
const PROMISES_PER_PENDING = 2

/** As the service's tool session does for an identical repeated call: one cached Promise, whatever the arguments. */
function cached(value: Promise<Value>) {
  let calls = 0
  const fn: TemplateFunction = () => {
    calls++
    return value
  }
  return {
    fn,
    get calls() {
      return calls
    },
  }
}

const isTimeout = (e: unknown) => e instanceof DOMException && e.name === 'TimeoutError'

describe('a function returning one cached Promise, called a million times', () => {
  const loops = {
    printed: '{{range 1000000}}{{f}}{{end}}',
    'a branch rendered aside': '{{range 1000000}}{{if (f)}}x{{end}}{{end}}',
    'kept in a variable': '{{range 1000000}}{{$n := len (f)}}{{end}}',
  }

  for (const [what, text] of Object.entries(loops)) {
    // Before: every iteration's Promises stayed pending until the walk ended; 200,000 steps held 700,000 to 1,100,000.
    it(`${what}: ends with the budget's TimeoutError, holding at most about ${MAX_PENDING} pending things at once`, async () => {
      const f = cached(Promise.resolve('v'))
      const pending = countPending()
      const error = await parse('t', text)
        .execute({}, { funcs: { f: f.fn }, maxSteps: 200_000 })
        .catch((e: unknown) => e)
      restore()
      expect(isTimeout(error)).toBe(true)
      expect(f.calls).toBeGreaterThan(10 * MAX_PENDING)
      expect(pending.most).toBeLessThanOrEqual(PROMISES_PER_PENDING * MAX_PENDING)
    })

    it(`${what}, never resolving: waits once it holds about ${MAX_PENDING} pending things, until the signal aborts`, async () => {
      const f = cached(new Promise<Value>(() => {}))
      const pending = countPending()
      const controller = new AbortController()
      const options = { funcs: { f: f.fn }, maxSteps: 200_000, signal: controller.signal }
      const rendering = parse('t', text).execute({}, options)
      // The walk ran until it had to wait for values that never come.
      expect(f.calls).toBeLessThanOrEqual(MAX_PENDING)
      expect(pending.most).toBeLessThanOrEqual(PROMISES_PER_PENDING * MAX_PENDING)
      const reason = new Error('deadline')
      controller.abort(reason)
      await expect(rendering).rejects.toBe(reason)
    })
  }

  it('makes one wrapper for the thenable it returns, not one a call', async () => {
    let thens = 0
    const thenable = {
      then(resolve: (v: Value) => void) {
        thens++
        resolve('v')
      },
    }
    const f: TemplateFunction = () => thenable as unknown as Value
    // Before: 5,000 calls of then.
    expect(await parse('t', '{{range 5000}}{{f}}{{end}}').execute({}, { funcs: { f } })).toBe('v'.repeat(5000))
    expect(thens).toBe(1)
  })

  it('costs steps for each call, as its time is: about 8 a printed call, beyond its node', async () => {
    const f = cached(Promise.resolve('v'))
    const render = (maxSteps: number) =>
      parse('t', '{{range 1000}}{{f}}{{end}}').execute({}, { funcs: { f: f.fn }, maxSteps })
    // Before: 2 steps an iteration, the node and the iteration, as if nothing were pending.
    expect(isTimeout(await render(6_000).catch((e: unknown) => e))).toBe(true)
    expect(await render(12_000)).toBe('v'.repeat(1000))
  })
})

describe('a walk waiting for its pending work', () => {
  it('stops when the signal aborts: nothing runs after, even when the values arrive', async () => {
    let arrive: (v: Value) => void = () => {}
    const f = cached(new Promise<Value>((resolve) => (arrive = resolve)))
    const controller = new AbortController()
    const rendering = parse('t', '{{range 1000000}}{{f}}{{end}}').execute(
      {},
      { funcs: { f: f.fn }, signal: controller.signal },
    )
    const calls = f.calls
    controller.abort(new Error('deadline'))
    await expect(rendering).rejects.toThrow('deadline')
    arrive('v')
    for (let i = 0; i < 20; i++) await Promise.resolve()
    // Before: the walk woke and walked the node it waited at, calling f once more after the abort.
    expect(f.calls).toBe(calls)
  })
})

describe('output and failures past the bound', () => {
  /** Each call's Promise resolves to its argument after (n mod 7) turns of the microtask queue: out of order. */
  const shuffled = (n: Value): Promise<Value> => {
    let p = Promise.resolve(n)
    for (let i = 0; i < Number(n) % 7; i++) p = p.then((v) => v)
    return p
  }

  it('keeps the output in template order, pieces joined as they arrive', async () => {
    const out = await parse('t', '{{range 5000}}{{f .}},{{if (f .)}}.{{end}}{{end}}').execute(
      {},
      { funcs: { f: shuffled } },
    )
    expect(out).toBe(Array.from({ length: 5000 }, (_, i) => `${i},${i === 0 ? '' : '.'}`).join(''))
  })

  it('reports the failure met first in execution order, whichever fails first', async () => {
    // Call 100 fails last, once call 4999 has been made; call 4000 fails at once.
    let failEarly: (e: Error) => void = () => {}
    const f: TemplateFunction = (n) => {
      if (n === 100n) return new Promise((_, reject) => (failEarly = reject))
      if (n === 4000n) return Promise.reject(new Error('4000'))
      if (n === 4999n) queueMicrotask(() => failEarly(new Error('100')))
      return shuffled(n)
    }
    const error = await parse('t', '{{range 5000}}{{f .}}{{end}}')
      .execute({}, { funcs: { f } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ExecError)
    expect((error as ExecError).detail).toBe('error calling f: 100')
  })

  it('reports the failure of a shared Promise at its first call in execution order, in a branch rendered aside', async () => {
    // The branch's call comes first in the template but is made last: it has a wrapper of its own.
    let yes: (v: Value) => void = () => {}
    let fail: (e: Error) => void = () => {}
    const shared = new Promise<Value>((_, reject) => (fail = reject))
    const funcs: Record<string, TemplateFunction> = {
      cond: () => new Promise((resolve) => (yes = resolve)),
      shared: () => shared,
    }
    const rendering = parse('t', '{{if cond}}{{shared}}{{end}}{{shared}}').execute({}, { funcs })
    yes(true)
    await Promise.resolve()
    fail(new Error('gone'))
    await expect(rendering).rejects.toThrow('template: t:1:13: executing "t" at <shared>: error calling shared: gone')
  })
})
