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

/** A SCAN MATCH pattern for every key under `prefix`, with glob characters in it escaped. */
export function matchUnder(prefix: string): string {
  return prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`) + '*'
}

function requireSuffix(kind: Kind, key: string): string {
  const suffix = keySuffix(kind, key)
  if (suffix === undefined) throw new Error(`key '${key}' is not under ${kindPrefix(kind)}`)
  return suffix
}
