import type { ValidateFunction } from 'ajv'
import { MAX_JSON_DEPTH, deepFreeze, nestedDeeperThan } from '../json'
import { describeError, log } from '../log'
import { Lru } from '../lru'
import { kindPrefix } from '../store'
import type { Kind, Page, Store } from '../store'
import { unnamable } from './ids'
import { explainInvalid } from './validate'
import type { Skip } from './types'

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string }

/** Turns a raw Redis value into a value, or a reason it cannot: never an exception. */
export type Decoder<T> = (raw: string | null) => Decoded<T>

const NO_VALUE = 'holds no string value (deleted while read, or not a Redis string)'
/** Checked before a validator, deepFreeze or a template recurses into the record. */
const TOO_DEEP = `is nested deeper than ${MAX_JSON_DEPTH} levels`

/** Distinct record texts each decoder remembers: a catalogue's worth, in one isolate. */
const DECODED_TEXTS = 500

/**
 * A JSON record (extension, prompt, tool), valid under its generated
 * validator (jsonschema/, validators.generated) and then `check` (what a schema cannot see, worded as a
 * reason). Every render reads its prompt and the tool list, mostly
 * unchanged: each text is parsed and checked once, and its record, frozen,
 * is shared by the requests that read the same text.
 */
export function jsonRecord<T>(validate: ValidateFunction, check?: (record: T) => string | undefined): Decoder<T> {
  const decoded = new Lru<string, Decoded<T>>(DECODED_TEXTS)
  const decode = (raw: string): Decoded<T> => {
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (e) {
      return { ok: false, reason: notJson(e) }
    }
    if (nestedDeeperThan(value)) return { ok: false, reason: TOO_DEEP }
    const invalid = explainInvalid(validate, value)
    if (invalid) return { ok: false, reason: `fails its schema: ${invalid}` }
    const record = deepFreeze(value as T)
    const problem = check?.(record)
    return problem ? { ok: false, reason: problem } : { ok: true, value: record }
  }
  return (raw) => {
    if (raw === null) return { ok: false, reason: NO_VALUE }
    let result = decoded.get(raw)
    if (!result) {
      result = decode(raw)
      decoded.set(raw, result)
    }
    return result
  }
}

/**
 * A shared variable: any JSON value. Publishers writing through the Upstash
 * or go-redis clients store a string as its bare text (`go`, not `"go"`), so
 * text that is not JSON is that string, as the Upstash client itself reads
 * it. Text that opens like an object or array but does not parse is corrupt.
 */
export const environValue: Decoder<unknown> = (raw) => {
  if (raw === null) return { ok: false, reason: NO_VALUE }
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (e) {
    return /^\s*[[{]/.test(raw) ? { ok: false, reason: notJson(e) } : { ok: true, value: raw }
  }
  return nestedDeeperThan(value) ? { ok: false, reason: TOO_DEEP } : { ok: true, value }
}

/**
 * V8's parse errors quote the text around the fault, and a value may hold
 * secrets or conversation history: keep only where the fault is.
 */
function notJson(e: unknown): string {
  const message = describeError(e)
  const at = /position (\d+)/.exec(message)
  if (at) return `is not valid JSON (error at position ${at[1]})`
  return /end of JSON input/.test(message) ? 'is not valid JSON (it ends early)' : 'is not valid JSON'
}

/** Logs a skipped record and returns it for the answer's `skipped` list. */
export function skip(key: string, reason: string): Skip {
  log.warn('record skipped', { key, reason })
  return { key, reason }
}

/** Words why a record found on a lookup by id cannot be served, to follow "tool 'id' ...". */
export function storedBut(key: string, reason: string): string {
  return `is stored at ${key} but ${reason}`
}

/** storedBut, for a record first found unusable here: also logged as skipped. */
export function unusable(key: string, reason: string): string {
  skip(key, reason)
  return storedBut(key, reason)
}

/** The keys of a kind an id can name (see ids.ts); the others are skipped. */
export function addressable(kind: Kind, keys: readonly string[]): { keys: string[]; skipped: Skip[] } {
  const out: string[] = []
  const skipped: Skip[] = []
  for (const key of keys) {
    const why = unnamable(kind, key)
    if (why === undefined) out.push(key)
    else skipped.push(skip(key, why))
  }
  return { keys: out, skipped }
}

export interface KeyedRecord<T> {
  key: string
  value: T
}

/**
 * A page of the records of a kind: up to `limit` of its keys after `after`,
 * from the record index, and their values in one read. Records that do not decode are skipped and logged.
 * `read` is the page of keys, for the cursor after it.
 */
export async function readKind<T>(
  store: Store,
  kind: Kind,
  decoder: Decoder<T>,
  after: string,
  limit: number,
): Promise<{ records: KeyedRecord<T>[]; skipped: Skip[]; read: Page }> {
  const read = await store.page(kindPrefix(kind), after, limit)
  const { keys, skipped } = addressable(kind, read.keys)
  const decoded = decodeAll(keys, await store.values(keys), decoder)
  return { records: decoded.records, skipped: [...skipped, ...decoded.skipped], read }
}

export function decodeAll<T>(
  keys: readonly string[],
  raws: readonly (string | null)[],
  decoder: Decoder<T>,
): { records: KeyedRecord<T>[]; skipped: Skip[] } {
  const records: KeyedRecord<T>[] = []
  const skipped: Skip[] = []
  keys.forEach((key, i) => {
    const decoded = decoder(raws[i] ?? null)
    if (decoded.ok) records.push({ key, value: decoded.value })
    else skipped.push(skip(key, decoded.reason))
  })
  return { records, skipped }
}
