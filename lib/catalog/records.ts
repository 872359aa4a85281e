import type { ValidateFunction } from 'ajv'
import { log } from '../log'
import type { Store } from '../store'
import { explainInvalid } from './validate'
import type { Skip } from './types'

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string }

/** Turns a raw Redis value into a value, or a reason it cannot: never an exception. */
export type Decoder<T> = (raw: string | null) => Decoded<T>

const NO_VALUE = 'holds no string value (deleted while read, or not a Redis string)'

/** A JSON record (extension, prompt, tool), valid against its generated validator. */
export function jsonRecord<T>(validate: ValidateFunction): Decoder<T> {
  return (raw) => {
    if (raw === null) return { ok: false, reason: NO_VALUE }
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (e) {
      return { ok: false, reason: notJson(e) }
    }
    const invalid = explainInvalid(validate, value)
    if (invalid) return { ok: false, reason: `fails its schema: ${invalid}` }
    return { ok: true, value: value as T }
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
  try {
    return { ok: true, value: JSON.parse(raw) }
  } catch (e) {
    return /^\s*[[{]/.test(raw) ? { ok: false, reason: notJson(e) } : { ok: true, value: raw }
  }
}

function notJson(e: unknown): string {
  return `is not valid JSON (${e instanceof Error ? e.message : String(e)})`
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
  decoder: Decoder<T>,
): Promise<{ records: KeyedRecord<T>[]; skipped: Skip[] }> {
  const keys = await store.keys(prefix)
  return decodeAll(keys, await store.values(keys), decoder)
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
