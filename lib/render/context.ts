import { nestRecords } from '../catalog'
import type { Skip } from '../catalog'
import { decodeAll, environValue } from '../catalog/records'
import { ServiceError } from '../http/errors'
import { isObject, ownValue } from '../json'
import type { JsonObject } from '../json'
import { kindPrefix } from '../store'
import type { Store } from '../store'
import type { Path } from '../template'

const ENVIRONS = kindPrefix('environs')

/** The key of an environ path: ["vscode", "rules"] is shenma:environs:vscode:rules. */
function keyOf(path: Path): string {
  return ENVIRONS + path.join(':')
}

/**
 * The shared variables a template reads, nested by path (`.vscode.frameworks`),
 * read in as few Redis round trips as the data allows:
 *
 *  1. for every path, its key and the keys above it, in one batched read
 *     (`.codebase.current_project.name` reads codebase, codebase:current_project
 *     and codebase:current_project:name);
 *  2. only for a path with nothing stored there, the keys below it, found by
 *     walking the environ keys (`{{range .vscode}}` reads every vscode:* key).
 *
 * So a template reading variables stored at their own keys costs one round
 * trip, and nothing at all within the store's freshness window.
 */
export async function loadVariables(
  store: Store,
  paths: readonly Path[],
): Promise<{ vars: JsonObject; skipped: Skip[] }> {
  // `.args` is the request's; an environ module named "args" would be hidden by it.
  const wanted = paths.filter((p) => p[0] !== 'args')
  if (wanted.length === 0) return { vars: {}, skipped: [] }

  const whole = wanted.some((p) => p.length === 0)
  const above = whole ? [] : [...new Set(wanted.flatMap((p) => p.map((_, i) => keyOf(p.slice(0, i + 1)))))]
  const raws = await store.values(above)
  const stored = new Set(above.filter((_, i) => raws[i] !== null))

  const bare = whole ? [[]] : wanted.filter((p) => !p.some((_, i) => stored.has(keyOf(p.slice(0, i + 1)))))
  let below: string[] = []
  if (bare.length > 0) {
    const all = await store.keys(ENVIRONS)
    const prefixes = bare.map((p) => (p.length === 0 ? ENVIRONS : `${keyOf(p)}:`))
    below = all.filter((key) => prefixes.some((prefix) => key.startsWith(prefix)) && !stored.has(key))
  }
  const belowRaws = below.length > 0 ? await store.values(below) : []

  const keys = [...above, ...below]
  const values = [...raws, ...belowRaws]
  const order = keys.map((_, i) => i).sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1))
  const present = order.filter((i) => values[i] !== null)
  const decoded = decodeAll(
    present.map((i) => keys[i] as string),
    present.map((i) => values[i] ?? null),
    environValue,
  )
  const tree = nestRecords(decoded.records, ENVIRONS.length)
  return { vars: tree.value, skipped: [...decoded.skipped, ...tree.skipped] }
}

/**
 * The first path the template reads that exists nowhere (a map along it lacks
 * the next name), as the template reads it. A path that reaches a non-map is
 * left to execution to judge.
 */
export function missingPath(data: JsonObject, paths: readonly Path[]): string | undefined {
  for (const path of paths) {
    let node: unknown = data
    for (const name of path) {
      if (!isObject(node)) break
      if (!Object.hasOwn(node, name)) return path.join('.')
      node = ownValue(node, name)
    }
  }
  return undefined
}

export function missingVariable(path: string): ServiceError {
  return new ServiceError('MISSING_VARIABLE', `the template reads .${path}, which no shared variable or arg provides`, {
    extra: { variable: path },
  })
}
