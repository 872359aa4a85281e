import { utf8Length } from '../template'
import type { Page, Store, Tree, TreeRequest, Within } from './types'
import { passedAt } from './within'

/** What a store lists and reads a tree with, when it answers Store.tree in several steps (treeOf). */
export interface TreeSource {
  /** Every key starting with `prefix`, sorted, each once. */
  under(prefix: string): Promise<string[]>
  valuesWithin(keys: readonly string[], maxBytes: number): Promise<Within>
}

/**
 * Store.tree from a store's listing and its read within a budget: the keys
 * below are listed first and their names charged, then the values are read
 * within what is left. A store that reads it all in one request (Upstash's
 * script, record-index.ts) charges in the same order, so both name the same
 * key as the one that passed the budget: the values of `keys`, then the
 * names below, then their values.
 */
export async function treeOf(source: TreeSource, { keys, prefixes, probes, maxBytes }: TreeRequest): Promise<Tree> {
  const [listed, probed] = await Promise.all([
    Promise.all(prefixes.map((prefix) => source.under(prefix))),
    Promise.all(probes.map((prefix) => source.under(prefix))),
  ])
  const asked = new Set(keys)
  const below = [...new Set(listed.flat())].filter((key) => !asked.has(key)).sort()
  const names = below.map((key) => utf8Length(key, 0, key.length))
  const read = await source.valuesWithin([...keys, ...below], maxBytes)
  if (!read.within) {
    const sizes = [...read.sizes.slice(0, keys.length), ...names, ...read.sizes.slice(keys.length)]
    const order = [...keys, ...below, ...below]
    const at = passedAt(sizes, maxBytes)
    return { within: false, passed: order[at === -1 ? order.length - 1 : at] as string }
  }
  const charged = [
    ...read.values.slice(0, keys.length).map(size),
    ...names,
    ...read.values.slice(keys.length).map(size),
  ]
  const at = passedAt(charged, maxBytes)
  if (at !== -1) return { within: false, passed: [...keys, ...below, ...below][at] as string }
  return {
    within: true,
    values: read.values.slice(0, keys.length),
    below,
    belowValues: read.values.slice(keys.length),
    occupied: probed.map((found) => found.length > 0),
  }
}

function size(value: string | null): number {
  return value === null ? 0 : utf8Length(value, 0, value.length)
}

/** A store's listing and reads, as treeOf takes them. */
export function listedSource(store: Pick<Store, 'page' | 'valuesWithin'>): TreeSource {
  return { under: (prefix) => allKeys(store, prefix), valuesWithin: (keys, most) => store.valuesWithin(keys, most) }
}

/** Store.page over every key under `prefix`, sorted. */
export function pageOf(sorted: readonly string[], after: string, limit: number): Page {
  let first = 0
  if (after !== '') {
    // Binary search: the first key past `after`.
    let high = sorted.length
    while (first < high) {
      const mid = (first + high) >>> 1
      if ((sorted[mid] as string) <= after) first = mid + 1
      else high = mid
    }
  }
  return { keys: sorted.slice(first, first + limit), more: first + limit < sorted.length }
}

/** Every key under `prefix`, by pages of a Store: for what must see them all (promote, the full listings). */
export async function allKeys(store: Pick<Store, 'page'>, prefix: string): Promise<string[]> {
  const keys: string[] = []
  for (let after = ''; ;) {
    const next = await store.page(prefix, after, ALL_PAGE)
    keys.push(...next.keys)
    if (!next.more || next.keys.length === 0) return keys
    after = next.keys[next.keys.length - 1] as string
  }
}

/** Keys per page when every key is wanted. */
const ALL_PAGE = 1000
