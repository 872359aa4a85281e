import { notFound } from '../errors'
import { allKeys, funcToKeys, keyToFunc, kindPrefix } from '../store'
import type { Store } from '../store'
import { grpcProblems } from './grpc'
import { checkId, idProblem } from './ids'
import { unsafeSchemas } from './record-schemas'
import { decodeAll, jsonRecord, readKind, skip, storedBut } from './records'
import type { KeyedRecord } from './records'
import type { Listing, Skip, ToolRecord } from './types'
import { validateTool } from './validators.generated'

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
 * Every valid tool. keyToFunc is not one-to-one (`a:b_c` and `a_b:c` are
 * both `a_b_c`): the first key in sorted order keeps the name and the other
 * is skipped, so a template function always means one tool.
 */
export async function listTools(store: Store): Promise<Listing<Tool>> {
  const { records, skipped } = await readKind(store, 'tools', decodeTool)
  return { items: holders(await callable(records, skipped), skipped), skipped }
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
    if (holder) skipped.push(skip(key, `its function name '${id}' is already taken by ${holder.key}`))
    else byId.set(id, { id, key, record: value })
  }
  return [...byId.values()]
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
