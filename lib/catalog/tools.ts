import { notFound } from '../errors'
import { allKeys, funcToKeys, keyToFunc, kindPrefix } from '../store'
import type { Store } from '../store'
import { grpcProblems } from './grpc'
import { checkId, idProblem } from './ids'
import { unsafeSchemas } from './record-schemas'
import { addressable, decodeAll, jsonRecord, skip, storedBut } from './records'
import type { KeyedRecord } from './records'
import { encodeCursor, startOf } from './paging'
import type { PageRequest, Paged } from './paging'
import type { Listing, Skip, ToolRecord } from './types'
import { validateTool } from './validators.generated'

const TOOLS = kindPrefix('tools')
const decodeTool = jsonRecord<ToolRecord>(validateTool, (record) => unsafeSchemas('tools', record))

export interface Tool {
  /** The template function name: keyToFunc of the key. */
  id: string
  key: string
  record: ToolRecord
}

/**
 * The keys one lookup of tools by function name reads at most. A name's
 * keys double with each underscore it holds (see funcToKeys); a lookup of
 * more reads the record index instead (toolKeys).
 */
export const MAX_TOOL_KEYS = 256

/**
 * A page of the valid tools, in key order (paging.ts). keyToFunc is not
 * one-to-one (`a:b_c` and `a_b:c` are both `a_b_c`): the first valid key in
 * sorted order keeps the name and the others are skipped, so a template
 * function always means one tool. That holds across pages: the page's
 * batch also reads the keys of its names that sort before it (earlierKeys),
 * those of a name of more than MAX_TOOL_KEYS keys through findTools.
 */
export async function listTools(store: Store, request: PageRequest = {}): Promise<Paged<Tool>> {
  const { from, limit } = startOf(request, [TOOLS])
  const read = await store.page(TOOLS, from?.key ?? '', limit)
  const first = read.keys[0]
  if (first === undefined) return { items: [], skipped: [], next: null }
  const { taken, earlier, many } = earlierKeys(read.keys, limit)
  const { keys, skipped } = addressable('tools', taken)
  const [raws, found] = await Promise.all([
    store.values([...keys, ...earlier]),
    many.length === 0 ? undefined : findTools(store, many),
  ])
  const own = decodeAll(keys, raws.slice(0, keys.length), decodeTool)
  skipped.push(...own.skipped)
  // The keys before the page are another page's records: whatever is wrong with them is reported there.
  const before = new Map<string, string>()
  const others = earlier.flatMap((key, i) => {
    const decoded = decodeTool(raws[keys.length + i] ?? null)
    return decoded.ok ? [{ key, value: decoded.value }] : []
  })
  for (const { key } of await callable(others, [])) if (!before.has(keyToFunc(key))) before.set(keyToFunc(key), key)
  for (const tool of found?.items ?? []) if (tool.key < first) before.set(tool.id, tool.key)
  const records = (await callable(own.records, skipped)).filter(({ key }) => {
    const holder = before.get(keyToFunc(key))
    if (holder !== undefined) skipped.push(skip(key, takenBy(keyToFunc(key), holder)))
    return holder === undefined
  })
  const last = taken.at(-1) as string
  const next = taken.length < read.keys.length || read.more ? encodeCursor({ key: last, at: 0 }) : null
  return { items: holders(records, skipped), skipped, next }
}

/**
 * The keys a page of tool `keys` lists (`taken`, its first ones), and the
 * keys of their names that sort before the page (`earlier`), to be read in
 * the page's batch: at most max(MAX_TOOL_KEYS, 4 x limit) of them, the page
 * ending before the key whose name would pass that (never before its first).
 * Names of more keys than MAX_TOOL_KEYS are `many`, for findTools.
 */
function earlierKeys(keys: readonly string[], limit: number): { taken: string[]; earlier: string[]; many: string[] } {
  const first = keys[0] as string
  const budget = Math.max(MAX_TOOL_KEYS, 4 * limit)
  const seen = new Set<string>()
  const earlier: string[] = []
  const many: string[] = []
  let taken = 0
  for (const key of keys) {
    const id = keyToFunc(key)
    if (!seen.has(id) && idProblem('tool', id) === undefined) {
      if (keyCount(id) > MAX_TOOL_KEYS) many.push(id)
      else {
        const before = funcToKeys(id).filter((k) => k < first)
        if (taken > 0 && earlier.length + before.length > budget) break
        earlier.push(...before)
      }
      seen.add(id)
    }
    taken++
  }
  return { taken: keys.slice(0, taken), earlier, many }
}

/**
 * The tools of these function names, by the same rule as listTools: one
 * batch reads the keys each name can be at, so the cost is the names' and
 * not the catalogue's. Names no tool has are left out; so are names no id
 * can be (idProblem). Skipped: the records of these names that failed or
 * lost their name to another key.
 */
export async function findTools(store: Store, names: Iterable<string>): Promise<Listing<Tool>> {
  const ids = [...new Set(names)].filter((id) => idProblem('tool', id) === undefined)
  const keys = await toolKeys(store, ids)
  if (keys.length === 0) return { items: [], skipped: [] }
  const raws = await store.values(keys)
  const present = keys.flatMap((_, i) => ((raws[i] ?? null) === null ? [] : [i]))
  const { records, skipped } = decodeAll(
    present.map((i) => keys[i] as string),
    present.map((i) => raws[i] ?? null),
    decodeTool,
  )
  return { items: holders(await callable(records, skipped), skipped), skipped }
}

/**
 * The keys that hold a tool of one of `ids`, sorted: those funcToKeys names,
 * when they are few; else the keys under each name's first segment, from
 * the record index, that are a key of the name.
 */
async function toolKeys(store: Store, ids: readonly string[]): Promise<string[]> {
  let count = 0
  for (const id of ids) count += keyCount(id)
  if (count <= MAX_TOOL_KEYS) return ids.flatMap(funcToKeys).sort()
  const wanted = new Set(ids)
  const segments = [...new Set(ids.map((id) => id.split('_')[0] as string))]
  const under = await Promise.all(segments.map((segment) => allKeys(store, kindPrefix('tools') + segment)))
  return under.flat().filter((key) => wanted.has(keyToFunc(key)))
}

/** How many keys funcToKeys(id) gives, up to a count past MAX_TOOL_KEYS. */
export function keyCount(id: string): number {
  let count = 1
  for (let at = id.indexOf('_'); at !== -1 && count <= MAX_TOOL_KEYS; at = id.indexOf('_', at + 1)) count *= 2
  return count
}

/**
 * The records but the grpc ones whose descriptor does not give a unary
 * method to call, which are added to `skipped`. Checked after decoding,
 * since it loads protobuf (grpc.ts), and before holders: a tool that cannot
 * be called takes no function name from another.
 */
async function callable(
  records: readonly KeyedRecord<ToolRecord>[],
  skipped: Skip[],
): Promise<KeyedRecord<ToolRecord>[]> {
  const problems = await Promise.all(
    records.map(({ value }) => (value.type === 'grpc' ? grpcProblems(value) : undefined)),
  )
  return records.filter(({ key }, i) => {
    const found = problems[i]
    if (!found?.length) return true
    skipped.push(skip(key, found.map((p) => `${p.path} ${p.problem}`).join('; ')))
    return false
  })
}

/** The tool of each function name: its first valid record in key order; the others are added to `skipped`. */
function holders(records: readonly KeyedRecord<ToolRecord>[], skipped: Skip[]): Tool[] {
  const byId = new Map<string, Tool>()
  for (const { key, value } of records) {
    const id = keyToFunc(key)
    const holder = byId.get(id)
    if (holder) skipped.push(skip(key, takenBy(id, holder.key)))
    else byId.set(id, { id, key, record: value })
  }
  return [...byId.values()]
}

function takenBy(id: string, holder: string): string {
  return `its function name '${id}' is already taken by ${holder}`
}

/** One tool by function name (findTools); NOT_FOUND saying why when a record of it is stored but unusable. */
export async function getTool(store: Store, id: string): Promise<Tool> {
  checkId('tool', id)
  const { items, skipped } = await findTools(store, [id])
  const tool = items[0]
  if (tool) return tool
  const bad = skipped[0]
  throw notFound('tool', id, bad && storedBut(bad.key, bad.reason))
}
