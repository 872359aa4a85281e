import { Redis } from '@upstash/redis'
import type { RecordFile } from './files'

export interface PublishTarget {
  url: string
  token: string
}

/**
 * Writes the records under their keys in one MULTI/EXEC transaction: one
 * HTTP request, and a reader never sees half an extension's records.
 * Values are stored as compact JSON text, as the service reads them.
 */
export async function publish(records: readonly RecordFile[], target: PublishTarget): Promise<void> {
  const redis = new Redis({
    url: target.url,
    token: target.token,
    enableTelemetry: false,
    automaticDeserialization: false,
  })
  const transaction = redis.multi()
  for (const { key, value } of records) transaction.set(key, JSON.stringify(value))
  await transaction.exec()
}

/** `SET key  (N bytes)  from file`, one line per record: what a publish would write. */
export function describeWrites(records: readonly RecordFile[]): string[] {
  const width = Math.max(0, ...records.map((r) => r.key.length))
  return records.map(
    ({ key, value, file }) => `SET ${key.padEnd(width)}  ${JSON.stringify(value).length} bytes  from ${file}`,
  )
}
