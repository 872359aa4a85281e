import { ROOT, labelPage } from '../store'
import type { Store } from '../store'
import { nextAfter, startOf } from './paging'
import type { PageRequest, Paged } from './paging'

const LABELS = `${ROOT}labels:`

/**
 * A page of the labels that have records of their own, in byte order
 * (lib/store labelPage: from the record index, a page costing its labels,
 * never their keys). The cursor is the last label's key prefix, as a
 * listing's cursor is a key.
 */
export async function listLabels(store: Store, request: PageRequest): Promise<Paged<{ label: string }>> {
  const { from, limit } = startOf(request, [LABELS])
  const page = await labelPage(store, from === undefined ? '' : from.key.slice(LABELS.length), limit)
  const next = nextAfter({ keys: page.keys.map((label) => LABELS + label), more: page.more })
  return { items: page.keys.map((label) => ({ label })), skipped: [], next }
}
