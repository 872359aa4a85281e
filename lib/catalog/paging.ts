import { ServiceError } from '../errors'
import type { Page } from '../store'
import type { Listing } from './types'

/**
 * Listings are read a page at a time (GET /api/{kind}?limit=&cursor=, MCP's
 * `cursor`), in the byte order of the keys, from the record index
 * (Store.page): what a page costs depends on its limit, never on how many
 * keys the database holds. A cursor is where the walk stands, opaque to
 * the caller: the last key read, and, for an extension whose prompts a page
 * left midway, the index of the next one. So a walk meets every record once,
 * and one added ahead of it (not one behind) too.
 */
export const DEFAULT_PAGE = 100
export const MAX_PAGE = 1000
/** A cursor's characters at most: base64url of a key and a number (keys are not bounded, ids are). */
export const MAX_CURSOR_CHARS = 8192
/** Pages a whole walk (allPages) reads at most. */
const MAX_WALK_PAGES = 10_000

export interface PageRequest {
  /** A `next` of the previous page of the same listing; none, the first page. */
  cursor?: string | undefined
  /** Items at most, 1 to MAX_PAGE; DEFAULT_PAGE when unset. */
  limit?: number | undefined
}

/** A page of a listing: its items and skipped records, and the cursor of the next page, null at the end. */
export interface Paged<T> extends Listing<T> {
  next: string | null
}

/** Where a walk stands: after `key`, or, with `at` past 0, at that index of the prompts of the extension at `key`. */
export interface Position {
  key: string
  at: number
}

/**
 * The position a page request starts after (undefined: the first page) and
 * its limit. 400 BAD_REQUEST for a limit out of range, and for a cursor no
 * listing of these key `prefixes` gave; `at` is only given where the key is
 * under `inside`.
 */
export function startOf(
  request: PageRequest,
  prefixes: readonly string[],
  inside?: string,
): { from: Position | undefined; limit: number } {
  const limit = request.limit ?? DEFAULT_PAGE
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw new ServiceError('BAD_REQUEST', `the limit must be an integer from 1 to ${MAX_PAGE}`)
  }
  if (request.cursor === undefined) return { from: undefined, limit }
  const from = decodeCursor(request.cursor)
  const fits =
    from !== undefined &&
    prefixes.some((prefix) => from.key.startsWith(prefix)) &&
    (from.at === 0 || (inside !== undefined && from.key.startsWith(inside)))
  if (!fits) {
    throw new ServiceError('BAD_REQUEST', 'the cursor is not one this listing gave: pass its next_cursor as answered')
  }
  return { from, limit }
}

export function encodeCursor({ key, at }: Position): string {
  const bytes = new TextEncoder().encode(JSON.stringify(at === 0 ? [key] : [key, at]))
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

function decodeCursor(cursor: string): Position | undefined {
  if (cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  let value: unknown
  try {
    const binary = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'))
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0))
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes))
  } catch {
    return undefined
  }
  if (!Array.isArray(value) || value.length < 1 || value.length > 2) return undefined
  const [key, at = 0] = value as unknown[]
  if (typeof key !== 'string' || key === '' || !Number.isSafeInteger(at) || (at as number) < 0) return undefined
  if (value.length === 2 && at === 0) return undefined
  return { key, at: at as number }
}

/** The cursor after a page of keys: its last key, when more follow. */
export function nextAfter(read: Page): string | null {
  const last = read.keys.at(-1)
  return read.more && last !== undefined ? encodeCursor({ key: last, at: 0 }) : null
}

/**
 * Every item of a paged listing, its cursor followed page by page: for
 * what must see a whole kind (the CLI's strict check). At most
 * MAX_WALK_PAGES pages.
 */
export async function allPages<T>(list: (request: PageRequest) => Promise<Paged<T>>): Promise<Listing<T>> {
  const all: Listing<T> = { items: [], skipped: [] }
  let cursor: string | undefined
  for (let pages = 0; pages < MAX_WALK_PAGES; pages++) {
    const page = await list({ cursor, limit: MAX_PAGE })
    all.items.push(...page.items)
    all.skipped.push(...page.skipped)
    if (page.next === null) return all
    cursor = page.next
  }
  throw new ServiceError('LIMIT_EXCEEDED', `the listing holds more than ${MAX_WALK_PAGES} pages of ${MAX_PAGE}`)
}
