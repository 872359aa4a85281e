import { ServiceError, notFound } from '../errors'
import { isObject, ownValue, setOwn } from '../json'
import type { JsonObject } from '../json'
import { keyToPath, kindPrefix, passedAt, pathToKey } from '../store'
import type { Store } from '../store'
import { utf8Length } from '../template'
import { checkId, unnamable } from './ids'
import { addressable, decodeAll, environValue, skip, unusable } from './records'
import type { KeyedRecord } from './records'
import type { Listing, Skip } from './types'

/** Bytes one environ read loads by default (ENVIRON_MAX_BYTES): its keys' names and values, everything below it. */
export const DEFAULT_ENVIRON_MAX_BYTES = 1024 * 1024
/** Values read at most at once: one EVAL of the Upstash store, one HTTP request. */
const MOST_READ = 1000

/**
 * Every shared-variable path (`vscode.frameworks` for
 * shenma:environs:vscode:frameworks). Only keys are read: values can be
 * large (conversation history), and a corrupt one is reported when it is read.
 */
export async function listEnvironPaths(store: Store): Promise<Listing<string>> {
  const { keys, skipped } = addressable('environs', await store.keys(kindPrefix('environs')))
  return { items: keys.map((key) => keyToPath('environs', key)), skipped }
}

/**
 * The value at `path`, with every variable stored below it nested in: the
 * variable stored under exactly that key, the object its descendants form
 * (`vscode` gives `{frameworks: [...], programming_language: "go"}`), or both
 * merged. So a path answers what its parent's answer holds at that path.
 * The key and the first SCAN page travel in one pipelined request. Past
 * `maxBytes` of keys and values read, LIMIT_EXCEEDED (see EnvironBudget).
 */
export async function getEnviron(
  store: Store,
  path: string,
  maxBytes = DEFAULT_ENVIRON_MAX_BYTES,
): Promise<{ value: unknown; skipped: Skip[] }> {
  checkId('environ', path)
  const key = pathToKey('environs', path)
  const [[raw], below] = await Promise.all([store.values([key]), store.keys(`${key}:`)])
  const { keys, skipped } = addressable('environs', below)
  const budget = new EnvironBudget(maxBytes, () => ({
    message: `environ '${path}' holds more than ${maxBytes} bytes with the variables below it (ENVIRON_MAX_BYTES): read the paths below it one by one`,
  }))
  budget.charge(raw ?? '')
  for (const name of keys) budget.charge(name, name)
  const descendants = decodeAll(keys, await budget.read(store, keys), environValue)
  skipped.push(...descendants.skipped)

  let root: unknown
  if (raw !== undefined && raw !== null) {
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

/**
 * The bytes an environ read may still load (ENVIRON_MAX_BYTES): keys' names
 * and values are charged, and past the budget the read fails with
 * LIMIT_EXCEEDED, as `refusal` words it for the key that passed it. Values
 * are sized before they are read, so a subtree past it loads none of them.
 */
export class EnvironBudget {
  left: number

  constructor(
    readonly maxBytes: number,
    readonly refusal: (key: string | undefined) => { message: string; extra?: Record<string, unknown> },
  ) {
    this.left = maxBytes
  }

  /** Charges the bytes of `text`: the name or value of `key`, when one is said. */
  charge(text: string, key?: string): void {
    this.left -= utf8Length(text, 0, text.length)
    if (this.left < 0) this.#refuse(key)
  }

  #refuse(key: string | undefined): never {
    const { message, extra } = this.refusal(key)
    throw new ServiceError('LIMIT_EXCEEDED', message, { extra: { limit: 'ENVIRON_MAX_BYTES', ...extra } })
  }

  /**
   * The values of `keys`, each charged. The store learns their sizes before
   * it reads them, in the same request (Store.valuesWithin): past the budget
   * left, no value is read, and the key that passed it is refused. A subtree
   * within it costs one read per MOST_READ keys.
   */
  async read(store: Store, keys: readonly string[]): Promise<(string | null)[]> {
    const values: (string | null)[] = []
    while (values.length < keys.length) {
      const batch = keys.slice(values.length, values.length + MOST_READ)
      const answer = await store.valuesWithin(batch, this.left)
      if (!answer.within) {
        const at = passedAt(answer.sizes, this.left)
        this.#refuse(batch[at === -1 ? batch.length - 1 : at])
      }
      for (const [i, value] of answer.values.entries()) {
        this.charge(value ?? '', batch[i])
        values.push(value)
      }
    }
    return values
  }
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
