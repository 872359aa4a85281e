import { environsTooLarge, nestRecords, present } from './environs'
import { MAX_ENVIRON_SEGMENTS } from './ids'
import { decodeAll, environValue, skip } from './records'
import type { Tool } from './tools'
import type { Skip } from './types'
import { ServiceError } from '../errors'
import { deepFreeze, isObject, ownValue, setOwn } from '../json'
import type { JsonObject } from '../json'
import { Lru } from '../lru'
import { kindPrefix } from '../store'
import type { Store } from '../store'
import { utf8Length } from '../template'
import type { Path } from '../template'

const ENVIRONS = kindPrefix('environs')
/** Variable trees kept, one per set of keys templates read: a catalogue's worth, in one isolate. */
const TREES = 100
/**
 * Bytes of text the trees kept were built from, in all: each may be built
 * from up to ENVIRON_MAX_BYTES, and a parsed tree takes a few times its
 * text, so a hundred trees of a MiB would overrun an isolate's 128 MB.
 */
export const TREE_BYTES = 8 * 1024 * 1024

/** The key of an environ path: ["vscode", "rules"] is shenma:environs:vscode:rules. */
function keyOf(path: Path): string {
  return ENVIRONS + path.join(':')
}

/** The prefix of the keys below a path. */
function prefixOf(path: Path): string {
  return path.length === 0 ? ENVIRONS : `${keyOf(path)}:`
}

/**
 * The shared variables a template reads, nested by path (`.vscode.frameworks`),
 * exactly as GET /api/environs/{path} would answer each path: for every path,
 * its key, the keys above it (`.codebase.current_project.name` reads codebase,
 * codebase:current_project and codebase:current_project:name) and the keys
 * below it, all in one read (Store.tree), which stays fresh in the store's
 * cache, so a warm render reads nothing. What it loads is bounded as an
 * environ read is: past `maxBytes` of the values and the names of the keys
 * below, in all paths, LIMIT_EXCEEDED naming the path that passed it;
 * `bytes` is what it loaded.
 */
export async function loadVariables(
  store: Store,
  paths: readonly Path[],
  maxBytes: number,
): Promise<{ vars: JsonObject; skipped: Skip[]; bytes: number }> {
  // `.args` is the request's; an environ module named "args" would be hidden by it. No key lies deeper than
  // MAX_ENVIRON_SEGMENTS (such keys are skipped), so a longer path reads what its first segments do: a template
  // path of thousands of segments costs no more keys than that.
  const wanted = paths.filter((p) => p[0] !== 'args').map((p) => p.slice(0, MAX_ENVIRON_SEGMENTS))
  if (wanted.length === 0) return { vars: {}, skipped: [], bytes: 0 }

  const above = [...new Set(wanted.flatMap((p) => p.map((_, i) => keyOf(p.slice(0, i + 1)))))]
  const probes = [...new Set(wanted.flatMap((p) => p.slice(0, -1).map((_, i) => prefixOf(p.slice(0, i + 1)))))]
  const read = await store.tree({ keys: above, prefixes: [...new Set(wanted.map(prefixOf))], probes, maxBytes })
  if (!read.within) {
    const variable = reader(wanted, read.passed).join('.')
    throw environsTooLarge(
      `the shared variables the template reads hold more than ${maxBytes} bytes (ENVIRON_MAX_BYTES), passed at .${variable}: read the paths below it one by one`,
      { variable },
    )
  }
  const below = present(read.below, read.belowValues)
  const keys = [...above, ...below.keys]
  const values = [...read.values, ...below.values]
  const id = `${above.join('\n')}\n\n${below.keys.join('\n')}`
  let entry = trees.get(id)
  if (!entry || !sameItems(entry.values, values) || !sameItems(entry.occupied, read.occupied)) {
    const bytes = [...values, ...below.keys].reduce(
      (n, text) => n + (text === null ? 0 : utf8Length(text, 0, text.length)),
      0,
    )
    const occupied = new Set(probes.filter((_, i) => read.occupied[i]))
    entry = { values, occupied: read.occupied, bytes, ...buildTree(keys, values, wanted, occupied) }
    trees.set(id, entry, bytes)
  } else {
    // Each request's log says what it skipped, as a fresh build does.
    for (const s of entry.skipped) skip(s.key, s.reason)
  }
  // The root is the request's own: the render adds its args there; below it the tree is shared, and frozen.
  return { vars: { ...entry.vars }, skipped: entry.skipped, bytes: entry.bytes }
}

/** The path of `paths` that reads `key`: the key's own, one above it, or one below it. */
function reader(paths: readonly Path[], key: string | undefined): Path {
  const reads = (p: Path) =>
    key !== undefined && (keyOf(p) === key || key.startsWith(prefixOf(p)) || keyOf(p).startsWith(`${key}:`))
  return paths.find(reads) ?? (paths[0] as Path)
}

/**
 * The last tree built from each set of keys, with the text it was built from.
 * Under load the store's cache hands every render the same text, so a tree is
 * decoded and nested once per change of its variables, not once per render.
 */
const trees = new Lru<
  string,
  { values: readonly (string | null)[]; occupied: readonly boolean[]; bytes: number; vars: JsonObject; skipped: Skip[] }
>(TREES, TREE_BYTES)

function buildTree(
  keys: readonly string[],
  values: readonly (string | null)[],
  wanted: readonly Path[],
  occupied: ReadonlySet<string>,
): { vars: JsonObject; skipped: Skip[] } {
  const order = keys.map((_, i) => i).sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1))
  const present = order.filter((i) => values[i] !== null)
  const decoded = decodeAll(
    present.map((i) => keys[i] as string),
    present.map((i) => values[i] ?? null),
    environValue,
  )
  const tree = nestRecords(decoded.records, ENVIRONS.length)
  ensureParents(tree.value, wanted, occupied)
  for (const member of Object.values(tree.value)) deepFreeze(member)
  return { vars: tree.value, skipped: [...decoded.skipped, ...tree.skipped] }
}

/** Whether two lists hold the same items; the store's cache hands out the same list and strings while they are fresh. */
function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]))
}

/**
 * A path's parents exist as maps when keys lie below them (`occupied`, the
 * prefixes read found a key under), even where only part of them was read:
 * `{{index .vscode "nope"}}` reads vscode.nope, yet `.vscode` itself is
 * there, as it would be with everything loaded.
 */
function ensureParents(tree: JsonObject, paths: readonly Path[], occupied: ReadonlySet<string>): void {
  for (const path of paths) {
    let node: JsonObject = tree
    for (let i = 0; i < path.length - 1; i++) {
      const name = path[i] as string
      let child = ownValue(node, name)
      if (child === undefined && occupied.has(prefixOf(path.slice(0, i + 1)))) {
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

/** The shared variables naming the base URL of the tools' modules: `modules.{module}.base_url`. */
export function basePaths(tools: readonly Tool[]): Path[] {
  return [...new Set(tools.map((t) => t.record.module))].map((m) => ['modules', m, 'base_url'])
}

/** A module's base URL, as basePaths read it: it wins over TOOLS_BASE_URL for that module's relative URLs. */
export function baseUrlOf(vars: JsonObject, module: string): string | undefined {
  const modules = ownValue(vars, 'modules')
  const entry = isObject(modules) ? ownValue(modules, module) : undefined
  const base = isObject(entry) ? ownValue(entry, 'base_url') : undefined
  return typeof base === 'string' ? base : undefined
}
