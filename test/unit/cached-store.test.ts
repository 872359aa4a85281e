// The 5-second cache's reads in flight: concurrent misses share one read of
// the inner store, failures reach every waiter, and a read whose request was
// cancelled does not hold its key hostage.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ServiceError } from '../../lib/errors'
import { CachedStore, FRESH_MS } from '../../lib/store/cached'
import { StaleReads } from '../../lib/store/stale'
import type { Snapshot } from '../../lib/store/stale'
import type { Store } from '../../lib/store/types'
import { measured } from '../../lib/store/within'

/** An inner store that answers each read as `answer` says, counting the keys it was asked for. */
function innerStore(answer: (keys: readonly string[]) => Promise<(string | null)[]>) {
  const asked: string[][] = []
  const store: Store = {
    kind: 'upstash',
    page: async () => ({ keys: [], more: false }),
    tree: () => Promise.reject(new Error('no tree is read here')),
    values: (keys) => {
      asked.push([...keys])
      return answer(keys)
    },
    valuesWithin: async (keys, maxBytes) => measured(await store.values(keys), maxBytes),
  }
  return { store, asked }
}

let namespaces = 0
function cached(inner: Store, flightLimitMs = 1000, waitUntil: (p: Promise<unknown>) => void = () => undefined) {
  // A namespace per test: the isolate's entries outlive one store.
  return new CachedStore(inner, { namespace: `unit-${++namespaces}`, shared: undefined, waitUntil, flightLimitMs })
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

  it('keeps the request that started a read alive until the read lands, for those waiting on it', async () => {
    let answer: (values: string[]) => void = () => undefined
    const { store } = innerStore(() => new Promise((resolve) => (answer = resolve)))
    const kept: Promise<unknown>[] = []
    const reading = cached(store, 1000, (p) => kept.push(p)).values(['k'])
    await vi.waitFor(() => expect(kept).toHaveLength(1))
    let landed = false
    void Promise.all(kept).then(() => (landed = true))
    await Promise.resolve()
    expect(landed).toBe(false)
    answer(['v'])
    expect(await reading).toEqual(['v'])
    await Promise.all(kept)
    expect(landed).toBe(true)
  })

  it('does not let a late answer of an older read replace a newer value', async () => {
    vi.useFakeTimers()
    let answerFirst: (values: string[]) => void = () => undefined
    let calls = 0
    const { store } = innerStore(() =>
      ++calls === 1 ? new Promise((resolve) => (answerFirst = resolve)) : Promise.resolve(['new']),
    )
    const cache = cached(store, 2000)
    void cache.values(['k'])
    const joiner = cache.values(['k'])
    await vi.advanceTimersByTimeAsync(2000)
    expect(await joiner).toEqual(['new'])
    answerFirst(['old'])
    await vi.advanceTimersByTimeAsync(0)
    expect(await cache.values(['k'])).toEqual(['new'])
    expect(calls).toBe(2)
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

describe('generations, for what is derived from the answers', () => {
  it('change when an entry of the namespace is stored, and only then', async () => {
    const { store } = innerStore(async (keys) => keys.map((k) => `v:${k}`))
    const first = cached(store)
    const before = first.generation
    await first.values(['a'])
    const after = first.generation
    expect(after).not.toBe(before)
    // A second request's store of the same namespace, served from the isolate: nothing changed.
    const second = new CachedStore(store, { ...first.options })
    await second.values(['a'])
    expect(second.generation).toBe(after)
    expect(second.answered).toBe(1)
  })

  it('hold until the oldest answer given is due to be read again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { store } = innerStore(async (keys) => keys.map((k) => `v:${k}`))
    const first = cached(store)
    expect(first.answersHoldUntil()).toBe(Infinity)
    const readAt = Date.now()
    await first.values(['a'])
    vi.setSystemTime(readAt + 2000)
    const second = new CachedStore(store, { ...first.options })
    await second.values(['a'])
    await second.values(['b'])
    // `a` was read 2 s ago, `b` now: the older decides, a second before its 5 s are over.
    expect(second.answersHoldUntil()).toBe(readAt + FRESH_MS - 1000)
  })
})

describe('last good copies, while the inner store fails', () => {
  const down = () => Promise.reject(new ServiceError('STORE_UNAVAILABLE', 'Redis MGET failed: timed out after 100 ms'))
  const HOUR_MS = 3_600_000

  /**
   * A request's store over `inner`, in `namespace`, with copies up to `maxAgeMs` old and the KV snapshots of `kv`,
   * waiting `waitMs` for a read a copy could answer.
   */
  function request(
    inner: Store,
    namespace: string,
    maxAgeMs = HOUR_MS,
    kv: Record<string, Snapshot> = {},
    waitMs = 60_000,
  ) {
    const snapshots = { get: async (key: string) => kv[key] ?? null } as unknown as KVNamespace
    const stale = new StaleReads({ maxAgeMs, snapshots, waitMs }, namespace)
    return new CachedStore(inner, {
      namespace,
      shared: undefined,
      waitUntil: () => undefined,
      flightLimitMs: 1000,
      stale,
    })
  }

  it("answers from the isolate's entry past its freshness, says how old, and keeps a plan on it a second at most", async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    let fail = false
    const { store } = innerStore((keys) => (fail ? down() : Promise.resolve(keys.map((k) => `v:${k}`))))
    const namespace = `stale-${++namespaces}`
    await request(store, namespace).values(['a'])
    vi.setSystemTime(Date.now() + 90_000)
    fail = true
    const stale = request(store, namespace)
    expect(await stale.values(['a'])).toEqual(['v:a'])
    expect(stale.options.stale?.ageMs).toBe(90_000)
    expect(stale.options.stale?.warning()).toMatchObject({ code: 'STORE_STALE', age_s: 90 })
    // What is made of copies is kept only until Redis is asked again, a second on.
    expect(stale.answersHoldUntil()).toBe(Date.now() + 1000)
  })

  it('answers a read Redis does not answer within the wait from its copy, and waits on for one with none', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    let hang = false
    const releases = new Map<string, () => void>()
    const { store } = innerStore((keys) => {
      if (!hang) return Promise.resolve(keys.map((k) => `v:${k}`))
      return new Promise((resolve) => releases.set(keys.join(), () => resolve(keys.map((k) => `late:${k}`))))
    })
    const namespace = `stale-${++namespaces}`
    await request(store, namespace).values(['a'])
    vi.setSystemTime(Date.now() + 10_000)
    hang = true
    const stale = request(store, namespace, HOUR_MS, {}, 1)
    expect(await stale.values(['a'])).toEqual(['v:a'])
    expect(stale.options.stale?.warning()).toMatchObject({ code: 'STORE_STALE', age_s: 10 })
    // `b` has no copy: the read waits for the store's late answer, and is no stale answer.
    const fresh = request(store, namespace, HOUR_MS, {}, 1)
    const waiting = fresh.values(['b'])
    await vi.waitFor(() => expect(releases.has('b')).toBe(true))
    releases.get('b')?.()
    expect(await waiting).toEqual(['late:b'])
    expect(fresh.options.stale?.warning()).toBeUndefined()
  })

  it('once a read failed, answers the next ones with a copy at once, asking Redis again a second later', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    let state: 'up' | 'down' | 'hanging' = 'up'
    const { store, asked } = innerStore((keys) => {
      if (state === 'down') return down()
      if (state === 'hanging') return new Promise(() => undefined)
      return Promise.resolve(keys.map((k) => `v:${k}`))
    })
    const namespace = `stale-${++namespaces}`
    await request(store, namespace).values(['a'])
    vi.setSystemTime(Date.now() + 10_000)
    state = 'down'
    expect(await request(store, namespace).values(['a'])).toEqual(['v:a'])
    // Redis now hangs, and the request would wait a minute for it: it is not waited for.
    state = 'hanging'
    const next = request(store, namespace, HOUR_MS, {}, 60_000)
    expect(await next.values(['a'])).toEqual(['v:a'])
    expect(next.options.stale?.ageMs).toBe(10_000)
    // Redis was asked a moment ago: not again, until a second has passed.
    expect(asked).toHaveLength(2)
    state = 'up'
    vi.setSystemTime(Date.now() + 10_000)
    const fresh = request(store, namespace)
    expect(await fresh.values(['b'])).toEqual(['v:b'])
    expect(await fresh.values(['a'])).toEqual(['v:a'])
    expect(fresh.options.stale?.ageMs).toBeUndefined()
  })

  it('fails as before when a copy is too old, when there is none, or when the failure is no Redis failure', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    let failure: () => Promise<never> = () => Promise.reject(new Error('a bug'))
    let fail = false
    const { store } = innerStore((keys) => (fail ? failure() : Promise.resolve(keys.map((k) => `v:${k}`))))
    const namespace = `stale-${++namespaces}`
    await request(store, namespace).values(['a'])
    vi.setSystemTime(Date.now() + 60_001)
    fail = true
    await expect(request(store, namespace).values(['a'])).rejects.toThrow('a bug')
    failure = down
    await expect(request(store, namespace, 60_000).values(['a'])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
    await expect(request(store, namespace).values(['a', 'b'])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
    const none = new CachedStore(store, { ...request(store, namespace).options, stale: undefined })
    await expect(none.values(['a'])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
  })

  it('answers from the snapshot of the prompt being read, and only the reads it recorded', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const { store } = innerStore(down)
    const namespace = `stale-${++namespaces}`
    const at = Date.now() - 120_000
    const kv = { [`${namespace}/team.p`]: { at, reads: { 'value/a': 'snapped' } } }
    const before = request(store, namespace, HOUR_MS, kv)
    // No prompt named: no snapshot read.
    await expect(before.values(['a'])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
    const stale = request(store, namespace, HOUR_MS, kv)
    stale.options.stale?.reading('team.p')
    expect(await stale.values(['a'])).toEqual(['snapped'])
    expect(stale.options.stale?.ageMs).toBe(120_000)
    await expect(stale.values(['a', 'b'])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
    const tooOld = request(store, namespace, 119_000, kv)
    tooOld.options.stale?.reading('team.p')
    await expect(tooOld.values(['a'])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
  })
})
