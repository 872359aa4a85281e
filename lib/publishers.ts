import { misconfigured } from './errors'
import { isObject } from './json'

/**
 * Publishers: who may change records, each with a name (kept in every
 * version it writes) and scopes. The secret PUBLISHERS lists them, each
 * known by the SHA-256 of its bearer token; ADMIN_TOKEN is the publisher
 * `admin`, with every scope.
 */
export interface Publisher {
  name: string
  scopes: readonly string[]
}

/** A publisher as PUBLISHERS configures it: its token's SHA-256, lowercase hex. */
export interface ConfiguredPublisher extends Publisher {
  tokenSha256: string
}

/** The scopes besides `write:<glob>`. */
export const ACTION_SCOPES = ['promote', 'rollback', 'rollout', 'approve'] as const

/** The name of ADMIN_TOKEN's publisher, kept for it alone. */
export const ADMIN_NAME = 'admin'

/** What `write:<glob>` scopes name: the base by this word, a label by its name. */
const BASE_SCOPE_NAME = 'base'

/** ADMIN_TOKEN's publisher: every label, the base, every action. */
export const ADMIN: Publisher = { name: ADMIN_NAME, scopes: ['write:*', `write:${BASE_SCOPE_NAME}`, ...ACTION_SCOPES] }

/** Publishers PUBLISHERS may list at most: each request's token is hashed once and compared with every one. */
export const MAX_PUBLISHERS = 100

/** Scopes one publisher may hold at most. */
const MAX_SCOPES = 50

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/
const SHA256_HEX = /^[0-9a-fA-F]{64}$/
// A label's characters (lib/store/keys.ts LABEL_PATTERN) and `*`.
const WRITE_SCOPE = /^write:[a-z0-9*][a-z0-9*-]{0,62}$/

/** PUBLISHERS parsed and checked: 503 MISCONFIGURED naming what is wrong (never a token's hash). */
export function parsePublishers(raw: string | undefined): readonly ConfiguredPublisher[] {
  if (!raw) return []
  const bad = (problem: string) => misconfigured('PUBLISHERS', problem)
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw bad('is not JSON: give an array of {"name", "token_sha256", "scopes"}')
  }
  if (!Array.isArray(parsed)) throw bad('must be a JSON array of {"name", "token_sha256", "scopes"}')
  if (parsed.length > MAX_PUBLISHERS) throw bad(`lists ${parsed.length} publishers, more than ${MAX_PUBLISHERS}`)
  const names = new Set<string>([ADMIN_NAME])
  const hashes = new Set<string>()
  return parsed.map((entry: unknown, i) => {
    const at = `entry ${i}`
    if (!isObject(entry)) throw bad(`${at} is not an object`)
    const { name, token_sha256: hash, scopes } = entry
    if (typeof name !== 'string' || !NAME.test(name)) {
      throw bad(`${at}: name must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit`)
    }
    if (names.has(name)) {
      throw bad(`${at}: the name '${name}' is ${name === ADMIN_NAME ? "ADMIN_TOKEN's" : 'given twice'}`)
    }
    names.add(name)
    if (typeof hash !== 'string' || !SHA256_HEX.test(hash)) {
      throw bad(`${at} ('${name}'): token_sha256 must be 64 hex digits, the SHA-256 of its token`)
    }
    const tokenSha256 = hash.toLowerCase()
    if (hashes.has(tokenSha256)) throw bad(`${at} ('${name}'): its token_sha256 is another publisher's`)
    hashes.add(tokenSha256)
    if (!Array.isArray(scopes) || scopes.length > MAX_SCOPES) {
      throw bad(`${at} ('${name}'): scopes must be an array of at most ${MAX_SCOPES}`)
    }
    for (const scope of scopes) {
      if (typeof scope !== 'string' || !isScope(scope)) {
        throw bad(
          `${at} ('${name}'): '${String(scope).slice(0, 70)}' is not a scope: write:<label glob>, write:base, ${ACTION_SCOPES.join(', ')}`,
        )
      }
    }
    return { name, tokenSha256, scopes: scopes as string[] }
  })
}

function isScope(scope: string): boolean {
  return (ACTION_SCOPES as readonly string[]).includes(scope) || WRITE_SCOPE.test(scope)
}

/** The scope writing to `label` needs: `write:<label>`, `write:base` for the base. */
export function writeScope(label: string | undefined): string {
  return `write:${label ?? BASE_SCOPE_NAME}`
}

/**
 * Whether `publisher` holds `scope`: an action's scope, and `write:base`,
 * by name; a label's write when one of its `write:<glob>` matches (`*` any
 * run of characters). No glob matches the base, so `write:b*` never
 * writes it: the base takes `write:base` itself.
 */
export function holds(publisher: Publisher, scope: string): boolean {
  if (publisher.scopes.includes(scope)) return true
  const target = scope.startsWith('write:') ? scope.slice('write:'.length) : BASE_SCOPE_NAME
  if (target === BASE_SCOPE_NAME) return false
  return publisher.scopes.some((held) => held.startsWith('write:') && globMatches(held.slice('write:'.length), target))
}

function globMatches(glob: string, text: string): boolean {
  // Scopes hold label characters and `*` only (WRITE_SCOPE): nothing else to escape.
  return new RegExp(`^${glob.replaceAll('*', '.*')}$`).test(text)
}
