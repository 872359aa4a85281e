import { ServiceError } from '../errors'

/**
 * A rollout: a prompt served from weighted versions of its record, and what
 * keeps a caller on one (`sticky`). Kept as JSON at rolloutKey (lib/store),
 * its versions newest first: the order the buckets are laid out in.
 */
export interface Rollout {
  versions: RolloutVersion[]
  /** `header:<name>` or `arg:<name>`: whose value picks the version; null, a version per request. */
  sticky: string | null
}

export interface RolloutVersion {
  version: number
  weight: number
}

/** Versions a rollout serves at most (and at least: one version is no rollout). */
export const MAX_ROLLOUT_VERSIONS = 10
export const MIN_ROLLOUT_VERSIONS = 2
/** The buckets a value hashes into; the weights are shares of them. */
export const BUCKETS = 100
/** Characters of a sticky value hashed at most: longer values are told apart by these only. */
export const MAX_STICKY_CHARS = 1024

const STICKY = /^(?:header:[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}|arg:[A-Za-z0-9_.-]{1,100})$/
const STICKY_RULE = "must be 'header:<name>' or 'arg:<name>' (a name of 1 to 100 characters)"

/**
 * A rollout as a request gives it, checked: 2 to 10 distinct versions, each
 * weight an integer from 0 to 100, summing to 100. Answered newest version
 * first (see bucketOf). Whether the versions exist is the caller's to check.
 */
export function checkRollout(body: { versions: readonly RolloutVersion[]; sticky?: string | undefined }): Rollout {
  const { versions } = body
  if (versions.length < MIN_ROLLOUT_VERSIONS || versions.length > MAX_ROLLOUT_VERSIONS) {
    throw bad(
      `a rollout has ${MIN_ROLLOUT_VERSIONS} to ${MAX_ROLLOUT_VERSIONS} versions (MAX_ROLLOUT_VERSIONS), not ${versions.length}`,
    )
  }
  const seen = new Set<number>()
  let total = 0
  for (const { version, weight } of versions) {
    if (!Number.isSafeInteger(version) || version < 1)
      throw bad(`version ${version} is not a version number (1 or more)`)
    if (!Number.isInteger(weight) || weight < 0 || weight > BUCKETS) {
      throw bad(`the weight of version ${version} must be an integer from 0 to ${BUCKETS}, not ${weight}`)
    }
    if (seen.has(version)) throw bad(`version ${version} is named twice`)
    seen.add(version)
    total += weight
  }
  if (total !== BUCKETS) throw bad(`the weights must sum to ${BUCKETS}, not ${total}`)
  const sticky = body.sticky ?? null
  if (sticky !== null && !STICKY.test(sticky)) throw bad(`sticky ${STICKY_RULE}`)
  const sorted = versions.map(({ version, weight }) => ({ version, weight })).sort((a, b) => b.version - a.version)
  return { versions: sorted, sticky }
}

/** A stored rollout, or undefined when what is stored is not one (it is then not applied, and logged by the caller). */
export function decodeRollout(text: string): Rollout | undefined {
  try {
    const parsed = JSON.parse(text) as { versions?: unknown; sticky?: unknown }
    if (!Array.isArray(parsed.versions)) return undefined
    const sticky = typeof parsed.sticky === 'string' ? parsed.sticky : undefined
    return checkRollout({ versions: parsed.versions as RolloutVersion[], sticky })
  } catch {
    return undefined
  }
}

/** What a request offers a sticky rollout: its headers, and the args it gave. */
export interface StickySource {
  header(name: string): string | undefined
  args: Readonly<Record<string, unknown>>
}

/** The version a render serves, and why (for the log line). */
export interface Choice {
  version: number
  why: string
}

/**
 * The version of `rollout` prompt `id` serves this request. A sticky value
 * picks bucketOf(id, value); a sticky source missing from the request (or
 * an arg that is no string, number or boolean), like no sticky at all,
 * picks a bucket at random.
 */
export function choose(rollout: Rollout, id: string, source: StickySource): Choice {
  const value = rollout.sticky === null ? undefined : stickyValue(rollout.sticky, source)
  if (value !== undefined) return { version: versionAt(rollout, bucketOf(id, value)), why: rollout.sticky as string }
  const why = rollout.sticky === null ? 'random' : `random: ${rollout.sticky} missing`
  return { version: versionAt(rollout, Math.floor(Math.random() * BUCKETS)), why }
}

/**
 * The bucket, in [0, 100), of a sticky value: FNV-1a (32-bit) of the UTF-8
 * of `id + "\n" + value` (its first MAX_STICKY_CHARS characters), modulo
 * 100. Fixed and documented (docs/versions-and-previews.md), so that a
 * caller can tell which bucket a value falls in, and a value keeps its bucket
 * across isolates, deployments and weight changes.
 */
export function bucketOf(id: string, value: string): number {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(`${id}\n${value.slice(0, MAX_STICKY_CHARS)}`)) {
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  }
  return hash % BUCKETS
}

/**
 * The version whose share of the buckets holds `bucket`, the versions laid
 * out newest first from 0: raising the newest version's weight only widens
 * its share, so every value it had stays on it.
 */
export function versionAt(rollout: Rollout, bucket: number): number {
  let upTo = 0
  for (const { version, weight } of rollout.versions) {
    upTo += weight
    if (bucket < upTo) return version
  }
  // The weights sum to BUCKETS (checkRollout): only a bucket out of range gets here.
  return (rollout.versions.at(-1) as RolloutVersion).version
}

function stickyValue(sticky: string, source: StickySource): string | undefined {
  const at = sticky.indexOf(':')
  const name = sticky.slice(at + 1)
  if (sticky.startsWith('header:')) return source.header(name)
  const arg = Object.hasOwn(source.args, name) ? source.args[name] : undefined
  return typeof arg === 'string' || typeof arg === 'number' || typeof arg === 'boolean' ? String(arg) : undefined
}

function bad(message: string): ServiceError {
  return new ServiceError('BAD_REQUEST', message)
}
