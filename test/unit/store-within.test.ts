// Store.valuesWithin, on the stores that answer it in memory: the embedded
// store measures what it holds; a label measures values as it overlays them
// (what it hides does not count); the cache keeps an answer whole, so a
// subtree measured once is not measured again while it is fresh.
import { describe, expect, it } from 'vitest'
import { CachedStore } from '../../lib/store/cached'
import { EmbeddedStore } from '../../lib/store/embedded'
import { TOMBSTONE } from '../../lib/store/keys'
import { LabeledStore } from '../../lib/store/labeled'
import type { Store, Within } from '../../lib/store/types'
import { passedAt } from '../../lib/store/within'

const base = (i: number) => `shenma:environs:t:k${i}`
const own = (i: number) => `shenma:labels:l:environs:t:k${i}`

/** Embedded records are JSON: a string of n - 2 characters is n bytes. */
const text = (bytes: number, c = 'x') => c.repeat(bytes - 2)

/** The embedded store, counting what it was asked to read within a budget. */
function counting(records: [string, unknown][]) {
  const inner = new EmbeddedStore(records)
  const asked: string[][] = []
  const store: Store = {
    kind: 'upstash',
    page: (prefix, after, limit) => inner.page(prefix, after, limit),
    tree: (request) => inner.tree(request),
    values: (keys) => inner.values(keys),
    valuesWithin: (keys, maxBytes) => {
      asked.push([...keys])
      return inner.valuesWithin(keys, maxBytes)
    },
  }
  return { store, asked }
}

describe('the embedded store', () => {
  it('answers the values within the budget, and their sizes in UTF-8 bytes past it', async () => {
    const store = new EmbeddedStore([
      [base(1), text(10)],
      [base(2), 'é€'],
    ])
    const keys = [base(1), base(2), base(3)]
    expect(await store.valuesWithin(keys, 17)).toEqual({ within: true, values: await store.values(keys) })
    expect(await store.valuesWithin(keys, 16)).toEqual({ within: false, sizes: [10, 7, -1] })
    expect(passedAt([10, 7, -1], 16)).toBe(1)
  })
})

describe('a label', () => {
  const records: [string, unknown][] = [
    [base(1), text(1000)],
    [base(2), text(1000)],
    [base(3), text(10)],
    [own(1), text(10, 'o')],
    [own(2), JSON.parse(TOMBSTONE)],
    [own(4), text(20, 'n')],
  ]
  const keys = [1, 2, 3, 4].map(base)

  it('answers the values `values` answers, measured as it sees them', async () => {
    const { store, asked } = counting(records)
    const label = new LabeledStore(store, 'l')
    const answer = await label.valuesWithin(keys, 10 + TOMBSTONE.length + 10 + 20)
    expect(answer).toEqual({ within: true, values: await label.values(keys) })
    expect(answer).toEqual({
      within: true,
      values: [`"${'o'.repeat(8)}"`, null, `"${'x'.repeat(8)}"`, `"${'n'.repeat(18)}"`],
    })
    // Base and overlay together pass it: the label's own values were read again, alone.
    expect(asked).toEqual([
      [...keys, ...[1, 2, 3, 4].map(own)],
      [own(1), own(2), base(3), own(4)],
    ])
  })

  it('is refused past the budget as it sees the values, without reading them', async () => {
    const { store, asked } = counting(records)
    const answer: Within = await new LabeledStore(store, 'l').valuesWithin(keys, 10 + TOMBSTONE.length + 10 + 20 - 1)
    // A tombstone counts as its few bytes: the label cannot tell it from a value without reading it.
    expect(answer).toEqual({ within: false, sizes: [10, TOMBSTONE.length, 10, 20] })
    expect(asked).toHaveLength(1)
  })

  it('is read once when base and overlay fit together', async () => {
    const { store, asked } = counting(records)
    const answer = await new LabeledStore(store, 'l').valuesWithin([base(3), base(4)], 30)
    expect(answer).toEqual({ within: true, values: [`"${'x'.repeat(8)}"`, `"${'n'.repeat(18)}"`] })
    expect(asked).toHaveLength(1)
  })
})

describe('the cache', () => {
  it('keeps an answer, refusal or values, per keys and budget', async () => {
    const { store, asked } = counting([[base(1), text(100)]])
    const cache = new CachedStore(store, {
      namespace: 'unit-within',
      shared: undefined,
      waitUntil: () => undefined,
      flightLimitMs: 1000,
    })
    const answers = await Promise.all([1, 2, 3].map(() => cache.valuesWithin([base(1)], 99)))
    expect(answers).toEqual([1, 2, 3].map(() => ({ within: false, sizes: [100] })))
    expect(await cache.valuesWithin([base(1)], 99)).toEqual({ within: false, sizes: [100] })
    expect(await cache.valuesWithin([base(1)], 100)).toEqual({ within: true, values: [`"${'x'.repeat(98)}"`] })
    expect(await cache.valuesWithin([base(1)], 100)).toEqual({ within: true, values: [`"${'x'.repeat(98)}"`] })
    expect(asked).toEqual([[base(1)], [base(1)]])
  })
})
