import { ServiceError, notFound } from '../errors'
import { isObject, ownValue, setOwn } from '../json'
import type { JsonObject } from '../json'
import { keyToPath, kindPrefix, pathToKey } from '../store'
import type { Store } from '../store'
import { checkId, unnamable } from './ids'
import { addressable, decodeAll, environValue, skip, unusable } from './records'
import type { KeyedRecord } from './records'
import { nextAfter, startOf } from './paging'
import type { PageRequest, Paged } from './paging'
import type { Skip } from './types'

/** Bytes one environ read loads by default (ENVIRON_MAX_BYTES): its keys' names and values, everything below it. */
export const DEFAULT_ENVIRON_MAX_BYTES = 1024 * 1024
const ENVIRONS = kindPrefix('environs')

/**
 * A page of the shared-variable paths (`vscode.frameworks` for
 * shenma:environs:vscode:frameworks), in key order (paging.ts). Only keys
 * are read: values can be large (conversation history), and a corrupt one
 * is reported when it is read.
 */
export async function listEnvironPaths(store: Store, request: PageRequest = {}): Promise<Paged<string>> {
  const { from, limit } = startOf(request, [ENVIRONS])
  const read = await store.page(ENVIRONS, from?.key ?? '', limit)
  const { keys, skipped } = addressable('environs', read.keys)
  return { items: keys.map((key) => keyToPath('environs', key)), skipped, next: nextAfter(read) }
}

/**
 * The value at `path`, with every variable stored below it nested in: the
 * variable stored under exactly that key, the object its descendants form
 * (`vscode` gives `{frameworks: [...], programming_language: "go"}`), or both
 * merged. So a path answers what its parent's answer holds at that path.
 * One read (Store.tree): past `maxBytes` of the values and the names of the
 * keys below, LIMIT_EXCEEDED, and no value is read.
 */
export async function getEnviron(
  store: Store,
  path: string,
  maxBytes = DEFAULT_ENVIRON_MAX_BYTES,
): Promise<{ value: unknown; skipped: Skip[] }> {
  checkId('environ', path)
  const key = pathToKey('environs', path)
  const read = await store.tree({ keys: [key], prefixes: [`${key}:`], probes: [], maxBytes })
  if (!read.within) {
    throw environsTooLarge(
      `environ '${path}' holds more than ${maxBytes} bytes with the variables below it (ENVIRON_MAX_BYTES): read the paths below it one by one`,
    )
  }
  const raw = read.values[0] ?? null
  const live = present(read.below, read.belowValues)
  const valueOf = new Map(live.keys.map((k, i) => [k, live.values[i] as string]))
  const { keys, skipped } = addressable('environs', live.keys)
  const descendants = decodeAll(
    keys,
    keys.map((k) => valueOf.get(k) ?? null),
    environValue,
  )
  skipped.push(...descendants.skipped)

  let root: unknown
  if (raw !== null) {
    const decoded = environValue(raw)
    if (decoded.ok) root = decoded.value
    else if (descendants.records.length === 0) throw notFound('environ', path, unusable(key, decoded.reason))
    else skipped.push(skip(key, decoded.reason))
  }
  if (root === undefined && descendants.records.length === 0) throw notFound('environ', path)
  if (descendants.records.length === 0) return { value: root, skipped }
  if (root !== undefined && !isObject(root)) {
    for (const { key: below } of descendants.records)
      skipped.push(skip(below, `conflicts with the non-object value at '${path}'`))
    return { value: root, skipped }
  }
  const tree = nestRecords(descendants.records, key.length + 1, root)
  return { value: tree.value, skipped: [...skipped, ...tree.skipped] }
}

/** The refusal of an environ read past ENVIRON_MAX_BYTES. */
export function environsTooLarge(message: string, extra?: Record<string, unknown>): ServiceError {
  return new ServiceError('LIMIT_EXCEEDED', message, { extra: { limit: 'ENVIRON_MAX_BYTES', ...extra } })
}

/**
 * The keys below a prefix that still hold a value: the index may list a key
 * deleted since (by other means), which is no variable, not a corrupt one.
 */
export function present(
  keys: readonly string[],
  values: readonly (string | null)[],
): { keys: string[]; values: string[] } {
  const kept = keys.flatMap((_, i) => (values[i] === null || values[i] === undefined ? [] : [i]))
  return { keys: kept.map((i) => keys[i] as string), values: kept.map((i) => values[i] as string) }
}

/**
 * Nests records, given in key order, by their key's `:`-separated segments
 * after the first `offset` characters, into `root`. A variable comes before
 * its descendants: descendants of an object merge into it (the deeper key
 * wins), and a descendant of a non-object is skipped, as the conflict it is.
 * A key no id can name is skipped as the API skips it, which also bounds
 * how deep its segments nest the tree.
 */
export function nestRecords(
  records: readonly KeyedRecord<unknown>[],
  offset: number,
  root: JsonObject = {},
): { value: JsonObject; skipped: Skip[] } {
  const skipped: Skip[] = []
  for (const { key, value } of records) {
    const why = unnamable('environs', key)
    if (why !== undefined) {
      skipped.push(skip(key, why))
      continue
    }
    const segments = key.slice(offset).split(':')
    const leaf = segments.pop() as string
    let node: JsonObject | undefined = root
    for (const [depth, segment] of segments.entries()) {
      const child: unknown = ownValue(node, segment)
      if (child === undefined) {
        const created: JsonObject = {}
        setOwn(node, segment, created)
        node = created
      } else if (isObject(child)) {
        node = child
      } else {
        const holder = segments.slice(0, depth + 1).join('.')
        skipped.push(skip(key, `conflicts with the non-object value at '${holder}'`))
        node = undefined
        break
      }
    }
    if (node) setOwn(node, leaf, value)
  }
  return { value: root, skipped }
}
