import { readFile } from 'node:fs/promises'
import { sep } from 'node:path'
import { KINDS, kindPrefix } from '../lib/store/keys'
import type { Kind } from '../lib/store/keys'

/** A record file, read and parsed, with the key it is published under. */
export interface RecordFile {
  file: string
  kind: Kind
  key: string
  value: unknown
}

/** Something wrong with a file: where in it (a JSON path, maybe with a template line and column), and what. */
export interface Problem {
  file: string
  where?: string
  message: string
}

/**
 * Reads the files and names their keys. A file's key comes from its path, as
 * in examples/: the part after the last folder named like a kind
 * (`extensions/`, `templates/`, `environs/`, `tools/`), without `.json`, with
 * `/` as `:` (`tools/codebase/lookup_ref.json` is `shenma:tools:codebase:lookup_ref`).
 * Outside such a folder, an extension is named by its `name` and a tool by
 * its `module` and `name`; anything else needs the folder.
 */
export async function readRecordFiles(
  files: readonly string[],
): Promise<{ records: RecordFile[]; problems: Problem[] }> {
  const records: RecordFile[] = []
  const problems: Problem[] = []
  for (const file of files) {
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (e) {
      problems.push({ file, message: `cannot be read: ${(e as NodeJS.ErrnoException).code ?? String(e)}` })
      continue
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (e) {
      problems.push({ file, message: `is not valid JSON: ${e instanceof Error ? e.message : String(e)}` })
      continue
    }
    const placed = keyOf(file, value)
    if (typeof placed === 'string') problems.push({ file, message: placed })
    else records.push({ file, ...placed, value })
  }
  return { records, problems }
}

/** The kind and key of a file (see readRecordFiles), or why it has none. */
function keyOf(file: string, value: unknown): { kind: Kind; key: string } | string {
  const parts = file.split(sep).join('/').split('/')
  const at = parts.findLastIndex((part, i) => i < parts.length - 1 && (KINDS as readonly string[]).includes(part))
  if (at !== -1) {
    const kind = parts[at] as Kind
    const rest = parts
      .slice(at + 1)
      .join(':')
      .replace(/\.json$/, '')
    return { kind, key: kindPrefix(kind) + rest }
  }
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
  const name = typeof record.name === 'string' ? record.name : undefined
  if ('contributes' in record && name) return { kind: 'extensions', key: kindPrefix('extensions') + name }
  if ('type' in record && name) {
    const module = typeof record.module === 'string' && record.module !== '' ? `${record.module}:` : ''
    return { kind: 'tools', key: `${kindPrefix('tools')}${module}${name}` }
  }
  return `has no key: put it under a folder named ${KINDS.map((k) => `${k}/`).join(', ')} (its path below names the key), as in examples/`
}
