import { notFound } from '../http/errors'
import { keyToPath, kindPrefix, pathToKey } from '../store'
import type { Store } from '../store'
import { decodeAll, environValue, skip } from './records'
import type { KeyedRecord } from './records'
import type { Skip } from './types'

export type JsonObject = { [key: string]: unknown }

/**
 * Every shared-variable path (`vscode.frameworks` for
 * shenma:environs:vscode:frameworks). Only keys are read: values can be
 * large (conversation history), and a corrupt one is reported when it is read.
 */
export async function listEnvironPaths(store: Store): Promise<string[]> {
  const keys = await store.keys(kindPrefix('environs'))
  return keys.map((key) => keyToPath('environs', key))
}

/**
 * The value at `path`: the variable stored under exactly that key, or, when
 * there is none, the object its descendants form (`vscode` gives
 * `{frameworks: [...], programming_language: "go"}`).
 */
export async function getEnviron(store: Store, path: string): Promise<{ value: unknown; skipped: Skip[] }> {
  const key = pathToKey('environs', path)
  const [raw] = await store.values([key])
  if (raw !== undefined && raw !== null) {
    const decoded = environValue(raw)
    if (decoded.ok) return { value: decoded.value, skipped: [] }
    skip(key, decoded.reason)
    throw notFound('environ', path, `is stored at ${key} but ${decoded.reason}`)
  }
  const keys = await store.keys(`${key}:`)
  if (keys.length === 0) throw notFound('environ', path)
  const { records, skipped } = decodeAll(keys, await store.values(keys), environValue)
  const tree = nestRecords(records, key.length + 1)
  return { value: tree.value, skipped: [...skipped, ...tree.skipped] }
}

/**
 * Nests records by their key's `:`-separated segments, after the first
 * `offset` characters of the key. Keys are taken in sorted order, so a
 * variable comes before its descendants: descendants of an object merge into
 * it, and a descendant of a non-object is skipped, as the conflict it is.
 */
export function nestRecords(
  records: readonly KeyedRecord<unknown>[],
  offset: number,
): { value: JsonObject; skipped: Skip[] } {
  const root: JsonObject = {}
  const skipped: Skip[] = []
  const sorted = [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  for (const { key, value } of sorted) {
    const segments = key.slice(offset).split(':')
    if (segments.some((s) => s === '')) {
      skipped.push(skip(key, 'has an empty path segment'))
      continue
    }
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

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

// Path segments come from Redis keys, so `__proto__` or `constructor` are
// just names: read and write own properties only, never the prototype chain.
function ownValue(node: JsonObject, name: string): unknown {
  return Object.hasOwn(node, name) ? node[name] : undefined
}

function setOwn(node: JsonObject, name: string, value: unknown): void {
  Object.defineProperty(node, name, { value, enumerable: true, writable: true, configurable: true })
}
