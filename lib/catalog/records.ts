import type { ValidateFunction } from 'ajv'
import { log } from '../log'
import type { Store } from '../store'
import { explainInvalid } from './validate'
import type { Skip } from './types'

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string }

/**
 * Turns a raw Redis value into a record: JSON-parsed, and validated when a
 * validator is given. Failure is a reason, never an exception, so that one
 * bad record cannot break a listing.
 */
export function decode<T>(raw: string | null, validate?: ValidateFunction): Decoded<T> {
  if (raw === null) return { ok: false, reason: 'holds no string value (deleted while read, or not a Redis string)' }
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch (e) {
    return { ok: false, reason: `is not valid JSON (${e instanceof Error ? e.message : String(e)})` }
  }
  const invalid = validate && explainInvalid(validate, value)
  if (invalid) return { ok: false, reason: `fails its schema: ${invalid}` }
  return { ok: true, value: value as T }
}

/** Logs a skipped record and returns it for the answer's `skipped` list. */
export function skip(key: string, reason: string): Skip {
  log.warn('record skipped', { key, reason })
  return { key, reason }
}

export interface KeyedRecord<T> {
  key: string
  value: T
}

/**
 * Every record under `prefix`: one SCAN walk for the keys, then batched reads
 * of the values. Records that do not decode are skipped and logged.
 */
export async function readUnder<T>(
  store: Store,
  prefix: string,
  validate?: ValidateFunction,
): Promise<{ records: KeyedRecord<T>[]; skipped: Skip[] }> {
  const keys = await store.keys(prefix)
  return decodeAll<T>(keys, await store.values(keys), validate)
}

export function decodeAll<T>(
  keys: readonly string[],
  raws: readonly (string | null)[],
  validate?: ValidateFunction,
): { records: KeyedRecord<T>[]; skipped: Skip[] } {
  const records: KeyedRecord<T>[] = []
  const skipped: Skip[] = []
  keys.forEach((key, i) => {
    const decoded = decode<T>(raws[i] ?? null, validate)
    if (decoded.ok) records.push({ key, value: decoded.value })
    else skipped.push(skip(key, decoded.reason))
  })
  return { records, skipped }
}
