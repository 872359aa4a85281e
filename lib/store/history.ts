import { ServiceError } from '../errors'
import { Lru } from '../lru'
import { DELETED, TOMBSTONE, historyKeys } from './keys'
import type { Command, CommandStore, Reply } from './types'

/**
 * Versions of records: what every write through the service keeps, in the
 * keys historyKeys names. A record and its version are written in one
 * MULTI/EXEC, so a reader never sees one without the other. Version numbers
 * come from an INCR in that same transaction: two writers of one record
 * never share a number, and never skip one.
 */

/** One version as listed. */
export interface VersionEntry {
  version: number
  created_at: string
  message: string | null
  /** The version is the record's deletion (or, in a label, its hiding). */
  deleted: boolean
}

/** One version with the text it stored; null for a deletion. */
export interface StoredVersion extends VersionEntry {
  text: string | null
}

/** One record to write: its new text, or null to delete it. */
export interface Change {
  key: string
  text: string | null
  message?: string | undefined
}

/** The most versions kept of a record, whatever HISTORY_LIMIT says: a listing reads them all. */
export const MAX_HISTORY = 1000

/** What the next write records of a record found changed by other means. */
const FOUND_MESSAGE = 'found changed in Redis by other means'

/** The versions kept of the record at `key`, newest first: one consistent read. */
export async function listVersions(store: CommandStore, key: string): Promise<VersionEntry[]> {
  const { seq, log } = historyKeys(key)
  const [count, entries] = results(
    await store.transaction(
      [
        ['GET', seq],
        ['LRANGE', log, '0', '-1'],
      ],
      false,
    ),
    key,
  )
  const newest = toCount(count, key)
  return (entries as string[]).map((entry, i) => entryOf(entry, newest - i))
}

/** Versions are immutable (their numbers are never reused): each is read once per isolate. */
const versions = new Lru<string, StoredVersion>(200)

/** Attempts at reading a version while other writes move it along the lists. */
const READ_ATTEMPTS = 3

/**
 * Version `n` of the record at `key`, or undefined when it is not kept
 * (never written, or trimmed). Version `seq - i` is at index `i`, so the
 * count is read with the entry, and the read is made again if a write
 * moved the entry between the two.
 */
export async function readVersion(store: CommandStore, key: string, n: number): Promise<StoredVersion | undefined> {
  const id = `${store.identity}\n${key}\n${n}`
  const known = versions.get(id)
  if (known) return known
  const { seq, log, values } = historyKeys(key)
  let [count] = results(await store.transaction([['GET', seq]], false), key)
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const index = toCount(count, key) - n
    if (n < 1 || index < 0) return undefined
    const at = String(index)
    const replies = results(
      await store.transaction(
        [
          ['GET', seq],
          ['LINDEX', log, at],
          ['LINDEX', values, at],
        ],
        false,
      ),
      key,
    )
    if (replies[0] !== count) {
      count = replies[0]
      continue
    }
    if (replies[1] === null) return undefined
    const entry = entryOf(replies[1] as string, n)
    const found = { ...entry, text: entry.deleted ? null : (replies[2] as string) }
    versions.set(id, found)
    return found
  }
  throw new ServiceError('CONFLICT', `the history of ${key} kept changing while version ${n} was read; try again`)
}

/**
 * The version of a record stored now as `text`, from its history's `seq`
 * and `head` (historyKeys): the newest version when that version stored
 * this text, null when the record was written by other means since (or
 * never through the service). Both are plain strings, read as values: a
 * caching store keeps them with the record.
 */
export async function versionFrom(
  text: string | null,
  seq: string | null,
  head: string | null,
): Promise<number | null> {
  if (seq === null || head !== (await digestOf(text))) return null
  const n = Number(seq)
  return Number.isSafeInteger(n) && n > 0 ? n : null
}

/**
 * Writes `changes` and a version of each, in one transaction, after one read
 * of their state. A record found changed by other means since its newest
 * version gets a version for that first. Every key involved is checked to
 * hold what it should first: a transaction whose commands all run cannot
 * fail half-way for a wrong type. `also` are commands run in the same
 * transaction (promote removes a label's overlay with them). Answers each
 * change's new version.
 */
export async function commit(
  store: CommandStore,
  changes: readonly Change[],
  options: { historyLimit: number; also?: readonly Command[] },
): Promise<number[]> {
  const reads: Command[] = changes.flatMap(({ key }) => {
    const h = historyKeys(key)
    return [
      ['GET', key],
      ['GET', h.seq],
      ['GET', h.head],
      ['TYPE', h.log],
      ['TYPE', h.values],
    ]
  })
  const state = reads.length > 0 ? await store.transaction(reads, false) : []
  const createdAt = new Date().toISOString()
  const keep = String(options.historyLimit - 1)
  const commands: Command[] = []
  /** Per change, the index in `commands` of the INCR that numbers its version. */
  const numbered: number[] = []
  for (const [i, change] of changes.entries()) {
    const [current, count, head, logType, valuesType] = results(state.slice(i * 5, i * 5 + 5), change.key)
    const h = historyKeys(change.key)
    checkType(h.log, logType)
    checkType(h.values, valuesType)
    toCount(count, change.key)
    const version = (text: string | null, message: string | null, digest: string): void => {
      const entry = JSON.stringify({ created_at: createdAt, message, deleted: text === null || text === TOMBSTONE })
      commands.push(['LPUSH', h.log, entry], ['LPUSH', h.values, text ?? ''], ['INCR', h.seq], ['SET', h.head, digest])
    }
    const found = await digestOf((current as string | null) ?? null)
    if (head === null ? current !== null : head !== found)
      version((current as string | null) ?? null, FOUND_MESSAGE, found)
    commands.push(change.text === null ? ['DEL', change.key] : ['SET', change.key, change.text])
    version(change.text, change.message ?? null, await digestOf(change.text))
    numbered.push(commands.length - 2)
    commands.push(['LTRIM', h.log, '0', keep], ['LTRIM', h.values, '0', keep])
  }
  commands.push(...(options.also ?? []))
  if (commands.length === 0) return []
  const replies = await store.transaction(commands, true)
  const failed = replies.find((reply) => reply.error !== undefined)
  if (failed) {
    // Reached only when a key changed type between the read and the write.
    throw new ServiceError('STORE_UNAVAILABLE', `Redis refused part of a write: ${failed.error}`)
  }
  return numbered.map((at) => Number(replies[at]?.result))
}

/** SHA-256 of a record's text, hex; DELETED for no record. */
export async function digestOf(text: string | null): Promise<string> {
  if (text === null) return DELETED
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')
}

/** The results of `replies`; a command's error (a key of another type) is a CONFLICT naming the record. */
function results(replies: readonly Reply[], key: string): unknown[] {
  return replies.map((reply) => {
    if (reply.error !== undefined) {
      throw new ServiceError('CONFLICT', `the record at ${key} or its history holds something else: ${reply.error}`)
    }
    return reply.result ?? null
  })
}

function checkType(key: string, type: unknown): void {
  if (type !== 'none' && type !== 'list') {
    throw new ServiceError('CONFLICT', `${key} holds a Redis ${String(type)}, not the list of versions it should`)
  }
}

function toCount(count: unknown, key: string): number {
  if (count === null) return 0
  const n = Number(count)
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new ServiceError('CONFLICT', `the version count of ${key} is not a number: ${String(count).slice(0, 40)}`)
  }
  return n
}

function entryOf(text: string, version: number): VersionEntry {
  let entry: Partial<VersionEntry> = {}
  try {
    entry = JSON.parse(text) as Partial<VersionEntry>
  } catch {
    // A damaged entry still has its number.
  }
  return {
    version,
    created_at: typeof entry.created_at === 'string' ? entry.created_at : '',
    message: typeof entry.message === 'string' ? entry.message : null,
    deleted: entry.deleted === true,
  }
}
