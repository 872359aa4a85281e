/**
 * Redis key formats of the four record kinds, and how a key becomes the id
 * the API and the templates use. The spec's keyToJsonPath and keyToFunc live
 * here and nowhere else.
 */
export const ROOT = 'shenma:'

export const KINDS = ['extensions', 'templates', 'environs', 'tools'] as const
export type Kind = (typeof KINDS)[number]

/** `shenma:environs:` and so on: every key of a kind starts with this. */
export function kindPrefix(kind: Kind): string {
  return `${ROOT}${kind}:`
}

/** The part of a key after its kind prefix, or undefined for a key of another kind. */
export function keySuffix(kind: Kind, key: string): string | undefined {
  const prefix = kindPrefix(kind)
  return key.startsWith(prefix) ? key.slice(prefix.length) : undefined
}

/**
 * keyToJsonPath: `shenma:environs:vscode:frameworks` is `vscode.frameworks`.
 * Extensions and directly stored prompts are named the same way.
 */
export function keyToPath(kind: Kind, key: string): string {
  return requireSuffix(kind, key).replaceAll(':', '.')
}

/** The inverse of keyToPath. */
export function pathToKey(kind: Kind, path: string): string {
  return kindPrefix(kind) + path.replaceAll('.', ':')
}

/** keyToFunc: `shenma:tools:codebase:lookup_ref` is `codebase_lookup_ref`. */
export function keyToFunc(key: string): string {
  return requireSuffix('tools', key).replaceAll(':', '_')
}

/**
 * The inverse of keyToFunc, which is not one-to-one: every key whose function
 * name is `id`, sorted. Each `_` of the name is a `_` or a `:` of its key, so a
 * name with k underscores has 2^k keys: callers bound k first.
 */
export function funcToKeys(id: string): string[] {
  const [first = '', ...rest] = id.split('_')
  let suffixes = [first]
  for (const part of rest) suffixes = suffixes.flatMap((s) => [`${s}:${part}`, `${s}_${part}`])
  return suffixes.map((s) => kindPrefix('tools') + s).sort()
}

/** The id the API and templates name a key by: its function name for a tool, its path for the others. */
export function keyToId(kind: Kind, key: string): string {
  return kind === 'tools' ? keyToFunc(key) : keyToPath(kind, key)
}

/** A SCAN MATCH pattern for every key under `prefix`, with glob characters in it escaped. */
export function matchUnder(prefix: string): string {
  return prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`) + '*'
}

function requireSuffix(kind: Kind, key: string): string {
  const suffix = keySuffix(kind, key)
  if (suffix === undefined) throw new Error(`key '${key}' is not under ${kindPrefix(kind)}`)
  return suffix
}

/**
 * A label (a branch): a DNS label, like the preview alias it usually is.
 * Its records live in an overlay that mirrors the base layout:
 * `shenma:labels:{label}:templates:a:b` is the label's `shenma:templates:a:b`.
 */
export const LABEL_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/
export const LABEL_RULE = 'must be 1 to 63 lowercase letters, digits and hyphens, starting with a letter or digit'

/** Every overlay key of `label` starts with this. */
export function labelPrefix(label: string): string {
  return `${ROOT}labels:${label}:`
}

/** The key `label` keeps its own version of `key` (a base key, or a base key prefix) at. */
export function overlayKey(label: string, key: string): string {
  return labelPrefix(label) + key.slice(ROOT.length)
}

/** The base key an overlay key of `label` stands for. */
export function baseKeyOf(label: string, key: string): string {
  return ROOT + key.slice(labelPrefix(label).length)
}

/**
 * What a label stores where it deleted a base record: the record is hidden
 * in that label. No record matches it (a JSON record has its schema's
 * fields; an environ of this value is refused on write).
 */
export const TOMBSTONE = '{"$shenma":"tombstone"}'

/**
 * Where the history of the record at `key` (base or overlay) is kept, each
 * under its own prefix so that no record key and no history key collide:
 * - `seq`: the number of versions ever written (INCR), so version numbers survive trimming;
 * - `head`: the SHA-256 of the newest version's text, or DELETED; a record whose text
 *   does not match it was written by other means, and is served unversioned;
 * - `log`: a list, newest first, of each version's `{created_at, message, deleted?}`;
 * - `values`: a list in step with `log`, of each version's text.
 * Version `seq - i` is at index `i` of both lists.
 */
export interface HistoryKeys {
  seq: string
  head: string
  log: string
  values: string
}

export function historyKeys(key: string): HistoryKeys {
  const rest = key.slice(ROOT.length)
  const at = (part: string) => `${ROOT}history:${part}:${rest}`
  return { seq: at('seq'), head: at('head'), log: at('log'), values: at('values') }
}

/** `head` of a record whose newest version is its deletion. */
export const DELETED = 'deleted'

/**
 * Where the rollout of prompt `id` is kept (lib/rollout): the base's, or
 * that of `label`'s own record of it. Outside every record kind's prefix and
 * the labels' overlay, so that no listing, index or reconcile sees it; ids
 * hold no ':', so `base:` and `label:` never collide with one.
 */
export function rolloutKey(id: string, label?: string): string {
  return `${ROOT}rollouts:${label === undefined ? 'base' : `label:${label}`}:${id}`
}

/** A set of the prompt ids `label` keeps rollouts of: what a promote of the label ends. */
export function labelRolloutsKey(label: string): string {
  return `${ROOT}rollouts:labeled:${label}`
}
