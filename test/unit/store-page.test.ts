// Store.page and Store.tree on the stores that answer them in memory: the
// embedded store, and a label over it, whose pages merge the base's keys with
// its own and drop those it deleted, page after page, and whose trees are read
// and measured as it sees them.
import { describe, expect, it } from 'vitest'
import { EmbeddedStore } from '../../lib/store/embedded'
import { TOMBSTONE } from '../../lib/store/keys'
import { LabeledStore } from '../../lib/store/labeled'
import { allKeys } from '../../lib/store/tree'
import type { Store } from '../../lib/store/types'

const base = (i: number) => `shenma:environs:t:k${String(i).padStart(2, '0')}`
const own = (i: number) => `shenma:labels:l:environs:t:k${String(i).padStart(2, '0')}`

/** Every page of `prefix` with `limit`, walked by the last key of each. */
async function walk(store: Store, prefix: string, limit: number): Promise<string[][]> {
  const pages: string[][] = []
  for (let after = ''; ;) {
    const { keys, more } = await store.page(prefix, after, limit)
    pages.push(keys)
    if (!more) return pages
    after = keys.at(-1) as string
  }
}

describe('the embedded store', () => {
  const store = new EmbeddedStore([1, 2, 3, 4, 5].map((i) => [base(i), i]))

  it('pages its keys in order, each once', async () => {
    expect(await walk(store, 'shenma:environs:', 2)).toEqual([[base(1), base(2)], [base(3), base(4)], [base(5)]])
    expect(await store.page('shenma:environs:', base(5), 2)).toEqual({ keys: [], more: false })
    expect(await store.page('shenma:tools:', '', 2)).toEqual({ keys: [], more: false })
  })
})

describe('a label', () => {
  // The label deletes 2, 3 and 4, changes 5 and adds 6 and 7.
  const records: [string, unknown][] = [
    ...[1, 2, 3, 4, 5].map((i): [string, unknown] => [base(i), `base ${i}`]),
    ...[2, 3, 4].map((i): [string, unknown] => [own(i), JSON.parse(TOMBSTONE)]),
    ...[5, 6, 7].map((i): [string, unknown] => [own(i), `own ${i}`]),
  ]
  const label = new LabeledStore(new EmbeddedStore(records), 'l')

  it('pages the keys it sees, reading past a page of keys it deleted', async () => {
    for (const limit of [1, 2, 3, 10]) {
      const pages = await walk(label, 'shenma:environs:', limit)
      expect(pages.flat(), `limit ${limit}`).toEqual([1, 5, 6, 7].map(base))
      // Only the last page is short.
      for (const page of pages.slice(0, -1)) expect(page, `limit ${limit}`).toHaveLength(limit)
    }
    expect(await allKeys(label, 'shenma:environs:t:')).toEqual([1, 5, 6, 7].map(base))
  })

  it('reads a tree as it sees it, and measures only that', async () => {
    const tree = await label.tree({
      keys: [base(1)],
      prefixes: ['shenma:environs:t:k0'],
      probes: ['shenma:environs:t:'],
      maxBytes: 1000,
    })
    expect(tree).toEqual({
      within: true,
      values: ['"base 1"'],
      below: [5, 6, 7].map(base),
      belowValues: ['"own 5"', '"own 6"', '"own 7"'],
      occupied: [true],
    })
    // The values it sees (8 + 3 * 7 bytes) and the names below (3 * 19): the base's hidden values do not count.
    const seen = 8 + 3 * 7 + 3 * base(5).length
    const read = { keys: [base(1)], prefixes: ['shenma:environs:t:k0'], probes: [] }
    expect(await label.tree({ ...read, maxBytes: seen })).toMatchObject({ within: true })
    expect(await label.tree({ ...read, maxBytes: seen - 1 })).toEqual({
      within: false,
      passed: base(7),
    })
  })
})
