import { notFound } from '../errors'
import { keyToFunc } from '../store'
import type { Store } from '../store'
import { grpcProblems } from './grpc'
import { checkId } from './ids'
import { unsafeSchemas } from './record-schemas'
import { jsonRecord, readKind, skip, storedBut } from './records'
import type { Listing, ToolRecord } from './types'
import { TOOL_SCHEMA } from './schemas.generated'

const decodeTool = jsonRecord<ToolRecord>(TOOL_SCHEMA, (record) => {
  const unsafe = unsafeSchemas('tools', record)
  if (unsafe || record.type !== 'grpc') return unsafe
  const problems = grpcProblems(record)
  return problems.length > 0 ? problems.map((p) => `${p.path} ${p.problem}`).join('; ') : undefined
})

export interface Tool {
  /** The template function name: keyToFunc of the key. */
  id: string
  key: string
  record: ToolRecord
}

/**
 * Every valid tool. keyToFunc is not one-to-one (`a:b_c` and `a_b:c` are
 * both `a_b_c`): the first key in sorted order keeps the name and the other
 * is skipped, so a template function always means one tool.
 */
export async function listTools(store: Store): Promise<Listing<Tool>> {
  const { records, skipped } = await readKind(store, 'tools', decodeTool)
  const byId = new Map<string, Tool>()
  for (const { key, value } of records) {
    const id = keyToFunc(key)
    const holder = byId.get(id)
    if (holder) skipped.push(skip(key, `its function name '${id}' is already taken by ${holder.key}`))
    else byId.set(id, { id, key, record: value })
  }
  return { items: [...byId.values()], skipped }
}

/**
 * One tool by function name. The name cannot be turned back into a key
 * (underscores are ambiguous), so this reads the tool list, which is small.
 */
export async function getTool(store: Store, id: string): Promise<Tool> {
  checkId('tool', id)
  const { items, skipped } = await listTools(store)
  const tool = items.find((t) => t.id === id)
  if (tool) return tool
  const bad = skipped.find((s) => keyToFunc(s.key) === id)
  throw notFound('tool', id, bad && storedBut(bad.key, bad.reason))
}
