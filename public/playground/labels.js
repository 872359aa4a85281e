// The labels the versions panel offers: those that have records of their own
// (GET /api/labels), and those named in this tab since. Every list of them in
// the page (the pickers' selects, the save form's suggestions) is refilled
// when one is added.
import { api, readJson } from './api.js'

/** A label as the service takes one (docs/versions-and-previews.md#labels). */
export const LABEL = /^[a-z0-9][a-z0-9-]{0,62}$/
export const LABEL_RULE = 'A label is 1 to 63 lowercase letters, digits and hyphens.'
/** Pages of GET /api/labels read at most. */
const MAX_PAGES = 10

const names = new Set()
const lists = new Set()

/** The labels known, sorted. */
export const knownLabels = () => [...names].sort()

/** Calls `refill` whenever a label is added. */
export const onLabels = (refill) => lists.add(refill)

/** Adds `label` (a string, not the base's null) to the known ones. */
export function addLabel(label) {
  if (!label || names.has(label)) return
  names.add(label)
  for (const refill of lists) refill()
}

/** Reads the labels that have records, page after page. */
export async function loadLabels() {
  let cursor = null
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''
    // A service without the route (older than the page) or out of reach: no labels listed, one typed in still works.
    // As every request of the page, with its label (which the listing does not depend on).
    const res = await api(`/api/labels${query}`).catch(() => null)
    if (!res?.ok) return
    const body = await readJson(res)
    for (const { label } of body.data ?? []) addLabel(label)
    cursor = body.next_cursor
    if (!cursor) return
  }
}
