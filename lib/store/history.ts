import { ServiceError } from '../errors'
import { Lru } from '../lru'
import { CHANGED, commitCommand } from './commit-script'
import type { Guard } from './commit-script'
import { DELETED, TOMBSTONE, historyKeys } from './keys'
import type { CommandStore, Reply } from './types'

/**
 * Versions of records: what every write through the service keeps, in the
 * keys historyKeys names. A record and its version are written in one
 * script, so a reader never sees one without the other. Version numbers
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
  /** The publisher who wrote it (lib/publishers.ts); null for one found changed by other means, or kept before publishers. */
  by: string | null
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

export interface CommitOptions {
  historyLimit: number
  deletions?: readonly string[]
  /** The publisher writing: kept in each version's entry. */
  by?: string | undefined
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

/**
 * Reads version ARGV[1] of a record in one step, so in one request (a
 * render serving a rollout's version reads it so): the count, then the
 * entry and text at the index the count gives (version `seq - i` is at `i`).
 */
const READ_VERSION = `
local count = redis.call('GET', KEYS[1])
local index = (tonumber(count) or 0) - tonumber(ARGV[1])
if index < 0 then return {count, false, false} end
return {count, redis.call('LINDEX', KEYS[2], index), redis.call('LINDEX', KEYS[3], index)}
`

/** Version `n` of the record at `key`, or undefined when it is not kept (never written, or trimmed). */
export async function readVersion(store: CommandStore, key: string, n: number): Promise<StoredVersion | undefined> {
  const id = `${store.identity}\n${key}\n${n}`
  const known = versions.get(id)
  if (known) return known
  if (n < 1) return undefined
  const { seq, log, values } = historyKeys(key)
  const [read] = results(
    await store.transaction([['EVAL', READ_VERSION, '3', seq, log, values, String(n)]], false),
    key,
  )
  const [count = null, entry = null, text = null] = Array.isArray(read) ? (read as unknown[]) : []
  toCount(count, key)
  if (entry === null || entry === false) return undefined
  const parsed = entryOf(String(entry), n)
  const found = { ...parsed, text: parsed.deleted ? null : String(text) }
  versions.set(id, found)
  return found
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
 * Writes `changes` and a version of each, in one step (commit-script.ts):
 * a record found changed by other means since its newest version gets a
 * version for that first, decided in that same step, so once however many
 * writers race. A transaction whose commands all run cannot fail half-way
 * for a wrong type: every key is checked first. `deletions` are keys
 * removed in the same step (promote removes a label's overlay with them).
 * Answers each change's new version.
 */
export async function commit(
  store: CommandStore,
  changes: readonly Change[],
  options: CommitOptions,
): Promise<number[]> {
  // Without guards, nothing can stop it.
  return (await commitIf(store, [], changes, options)) as number[]
}

/**
 * commit, made only if every key in `guards` still holds what was read
 * there (Observed): undefined, and nothing written, when one does not.
 */
export async function commitIf(
  store: CommandStore,
  guards: readonly Guard[],
  changes: readonly Change[],
  options: CommitOptions,
): Promise<number[] | undefined> {
  if (changes.length === 0 && guards.length === 0 && !options.deletions?.length) return []
  const createdAt = new Date().toISOString()
  const entry = (message: string | null, deleted: boolean, by: string | null) =>
    JSON.stringify({ created_at: createdAt, message, deleted, by })
  const script = await Promise.all(
    changes.map(async ({ key, text, message }) => ({
      key,
      text,
      entry: entry(message ?? null, text === null || text === TOMBSTONE, options.by ?? null),
      digest: await digestOf(text),
    })),
  )
  const found = { live: entry(FOUND_MESSAGE, false, null), gone: entry(FOUND_MESSAGE, true, null) }
  const command = commitCommand(script, {
    keep: options.historyLimit - 1,
    found,
    deletions: options.deletions ?? [],
    guards,
  })
  const [reply] = await store.transaction([command], true)
  if (reply?.error !== undefined) {
    throw new ServiceError('STORE_UNAVAILABLE', `Redis refused a write: ${reply.error}`)
  }
  const result = reply?.result
  if (result === CHANGED) return undefined
  if (!Array.isArray(result)) {
    // The script refused before writing anything, saying what it found.
    throw new ServiceError('CONFLICT', `a record or its history holds something else: ${String(result)}`)
  }
  return result.map(Number)
}

/** SHA-256 of a record's text, hex; DELETED for no record. */
export async function digestOf(text: string | null): Promise<string> {
  return text === null ? DELETED : hexDigest('SHA-256', text)
}

/** The digest of `text`'s UTF-8, hex, as Redis's sha1hex answers it for SHA-1. */
export async function hexDigest(algorithm: 'SHA-1' | 'SHA-256', text: string): Promise<string> {
  return hexOf(await crypto.subtle.digest(algorithm, new TextEncoder().encode(text)))
}

/** Bytes (a digest, a MAC) as lower-case hex. */
export function hexOf(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('')
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
    by: typeof entry.by === 'string' ? entry.by : null,
  }
}
