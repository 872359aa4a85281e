// The 5-second cache's reads in flight: concurrent misses share one read of
// the inner store, failures reach every waiter, and a read whose request was
// cancelled does not hold its key hostage.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CachedStore } from '../../lib/store/cached'
import type { Store } from '../../lib/store/types'

/** An inner store that answers each read as `answer` says, counting the keys it was asked for. */
function innerStore(answer: (keys: readonly string[]) => Promise<(string | null)[]>) {
  const asked: string[][] = []
  const store: Store = {
    kind: 'upstash',
    keys: async () => [],
    values: (keys) => {
      asked.push([...keys])
      return answer(keys)
    },
  }
  return { store, asked }
}

let namespaces = 0
function cached(inner: Store, flightLimitMs = 1000): CachedStore {
  // A namespace per test: the isolate's entries outlive one store.
  return new CachedStore(inner, {
    namespace: `unit-${++namespaces}`,
    shared: undefined,
    waitUntil: () => undefined,
    flightLimitMs,
  })
}

afterEach(() => vi.useRealTimers())

describe('reads in flight', () => {
  it('sends concurrent misses of the same keys to the inner store once', async () => {
    const { store, asked } = innerStore(async (keys) => keys.map((k) => `v:${k}`))
    const cache = cached(store)
    const answers = await Promise.all(Array.from({ length: 10 }, () => cache.values(['a', 'b'])))
    expect(answers).toEqual(Array.from({ length: 10 }, () => ['v:a', 'v:b']))
    expect(asked).toEqual([['a', 'b']])
  })

  it('reads only the keys not already in flight', async () => {
    const { store, asked } = innerStore(async (keys) => keys.map((k) => `v:${k}`))
    const cache = cached(store)
    const [first, second] = await Promise.all([cache.values(['a', 'b']), cache.values(['b', 'c', 'c'])])
    expect([first, second]).toEqual([
      ['v:a', 'v:b'],
      ['v:b', 'v:c', 'v:c'],
    ])
    expect(asked).toEqual([['a', 'b'], ['c']])
  })

  it('gives every waiter the error of a failed read, and reads again on the next miss', async () => {
    let fail = true
    const { store, asked } = innerStore(async (keys) => {
      if (fail) throw new Error('redis down')
      return keys.map(() => 'up')
    })
    const cache = cached(store)
    const settled = await Promise.allSettled([cache.values(['k']), cache.values(['k'])])
    expect(settled.map((s) => s.status === 'rejected' && String(s.reason))).toEqual([
      'Error: redis down',
      'Error: redis down',
    ])
    fail = false
    expect(await cache.values(['k'])).toEqual(['up'])
    expect(asked).toEqual([['k'], ['k']])
  })

  it('reads for itself once the read it joined has outlived its limit', async () => {
    vi.useFakeTimers()
    let calls = 0
    const { store } = innerStore((keys) =>
      ++calls === 1 ? new Promise(() => {}) : Promise.resolve(keys.map(() => 'late')),
    )
    const cache = cached(store, 2000)
    // The request that started this read was cancelled: it never answers.
    void cache.values(['k'])
    const joiner = cache.values(['k'])
    await vi.advanceTimersByTimeAsync(1999)
    expect(calls).toBe(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(await joiner).toEqual(['late'])
    expect(calls).toBe(2)
  })
})
