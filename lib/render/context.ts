import { MAX_ENVIRON_SEGMENTS, nestRecords } from '../catalog'
import type { Skip } from '../catalog'
import { decodeAll, environValue } from '../catalog/records'
import { ServiceError } from '../errors'
import { isObject, ownValue, setOwn } from '../json'
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
 * exactly as GET /api/environs/{path} would answer each path: for every path,
 * its key, the keys above it (`.codebase.current_project.name` reads codebase,
 * codebase:current_project and codebase:current_project:name) and the keys
 * below it. The keys above are read in one batch together with the list of
 * environ keys, which tells which keys lie below; those are a second batch,
 * only when there are any. Both reads stay fresh in the store's cache, so a
 * warm render reads nothing.
 */
export async function loadVariables(
  store: Store,
  paths: readonly Path[],
): Promise<{ vars: JsonObject; skipped: Skip[] }> {
  // `.args` is the request's; an environ module named "args" would be hidden by it. No key lies deeper than
  // MAX_ENVIRON_SEGMENTS (such keys are skipped), so a longer path reads what its first segments do: a template
  // path of thousands of segments costs no more keys than that.
  const wanted = paths.filter((p) => p[0] !== 'args').map((p) => p.slice(0, MAX_ENVIRON_SEGMENTS))
  if (wanted.length === 0) return { vars: {}, skipped: [] }

  const above = [...new Set(wanted.flatMap((p) => p.map((_, i) => keyOf(p.slice(0, i + 1)))))]
  const [raws, all] = await Promise.all([store.values(above), store.keys(ENVIRONS)])
  const taken = new Set(above)
  const prefixes = wanted.map((p) => (p.length === 0 ? ENVIRONS : `${keyOf(p)}:`))
  const below = all.filter((key) => !taken.has(key) && prefixes.some((prefix) => key.startsWith(prefix)))
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
  ensureParents(tree.value, wanted, all)
  return { vars: tree.value, skipped: [...decoded.skipped, ...tree.skipped] }
}

/**
 * A path's parents exist as maps when keys lie below them, even where only
 * part of them was read: `{{index .vscode "nope"}}` reads vscode.nope, yet
 * `.vscode` itself is there, as it would be with everything loaded.
 */
function ensureParents(tree: JsonObject, paths: readonly Path[], keys: readonly string[]): void {
  for (const path of paths) {
    let node: JsonObject = tree
    for (let i = 0; i < path.length - 1; i++) {
      const name = path[i] as string
      const prefix = `${keyOf(path.slice(0, i + 1))}:`
      let child = ownValue(node, name)
      if (child === undefined && keys.some((key) => key.startsWith(prefix))) {
        child = {}
        setOwn(node, name, child)
      }
      if (!isObject(child)) break
      node = child
    }
  }
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
