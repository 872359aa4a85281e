import { readFile } from 'node:fs/promises'
import { basename, sep } from 'node:path'
import type { Problem, RecordFile } from '../lib/catalog'
import { environValue } from '../lib/catalog/records'
import { KINDS, kindPrefix } from '../lib/store/keys'
import type { Kind } from '../lib/store/keys'
import { describeError } from '../lib/log'

export type { Problem, RecordFile } from '../lib/catalog'

/** What reading found: the records, the files that are not records (errors), and doubtful readings (warnings). */
export interface ReadFiles {
  records: RecordFile[]
  problems: Problem[]
  warnings: Problem[]
}

/**
 * Reads the files and names their keys. A file's key comes from its path, as
 * in examples/: the part after the last folder named like a kind
 * (`extensions/`, `templates/`, `environs/`, `tools/`), without its extension,
 * with `/` as `:` (`tools/codebase/lookup_ref.json` is
 * `shenma:tools:codebase:lookup_ref`). Outside such a folder, an extension is
 * named by its `name` and a tool by its `module` and `name`; anything else
 * needs the folder. An environ is read as the service reads its value (see
 * environOf); every other record is JSON.
 */
export async function readRecordFiles(files: readonly string[]): Promise<ReadFiles> {
  const read: ReadFiles = { records: [], problems: [], warnings: [] }
  for (const file of files) {
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (e) {
      read.problems.push({ file, message: `cannot be read: ${(e as NodeJS.ErrnoException).code ?? String(e)}` })
      continue
    }
    const folder = folderOf(file)
    if (folder?.kind === 'environs') {
      const environ = environOf(file, text)
      if ('problem' in environ) {
        read.problems.push({ file, message: environ.problem })
        continue
      }
      read.records.push({ file, kind: 'environs', key: folder.key, value: environ.value })
      if (environ.warning !== undefined) read.warnings.push({ file, message: environ.warning })
      continue
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (e) {
      read.problems.push({ file, message: `is not valid JSON: ${describeError(e)}` })
      continue
    }
    const placed = folder ?? keyOf(value)
    if (typeof placed === 'string') read.problems.push({ file, message: placed })
    else read.records.push({ file, ...placed, value })
  }
  return read
}

/**
 * Whether a file found inside a folder given to the CLI is a record: a
 * `.json` file, or any file below an `environs/` folder (a bare-text
 * environ), leaving out hidden files such as `.DS_Store`.
 */
export function isRecordFile(file: string): boolean {
  if (basename(file).startsWith('.')) return false
  return file.endsWith('.json') || folderOf(file)?.kind === 'environs'
}

/**
 * An environ's value. A `.json` file is read as the service reads a value
 * from Redis (lib/catalog/records.ts): JSON, or else its text, unless it
 * opens with `{` or `[` and so is corrupt JSON. Any other file (`.txt`, `.md`,
 * no extension) is bare text, whatever it looks like: its content is the
 * value, less one final line ending, which editors add.
 */
function environOf(file: string, text: string): { value: unknown; warning?: string } | { problem: string } {
  const bare = text.replace(/\r?\n$/, '')
  if (!file.endsWith('.json')) return { value: bare }
  const decoded = environValue(text)
  if (!decoded.ok) return { problem: decoded.reason }
  if (decoded.value !== text) return { value: decoded.value }
  return {
    value: bare,
    warning: 'is not JSON: its text is the value, as the service reads it (name it other than .json to say so)',
  }
}

/** The kind and key a file's path gives it, when it is below a folder named like a kind. */
function folderOf(file: string): { kind: Kind; key: string } | undefined {
  const parts = file.split(sep).join('/').split('/')
  const at = parts.findLastIndex((part, i) => i < parts.length - 1 && (KINDS as readonly string[]).includes(part))
  if (at === -1) return undefined
  const kind = parts[at] as Kind
  const rest = parts.slice(at + 1).join(':')
  // An environ may be any file, so it loses any extension; other records lose `.json`.
  const key = kind === 'environs' ? rest.replace(/\.[^.:]*$/, '') : rest.replace(/\.json$/, '')
  return { kind, key: kindPrefix(kind) + key }
}

/** The kind and key of a record outside a kind's folder, named by its own fields, or why it has none. */
function keyOf(value: unknown): { kind: Kind; key: string } | string {
  const record = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}
  const name = typeof record.name === 'string' ? record.name : undefined
  if ('contributes' in record && name) return { kind: 'extensions', key: kindPrefix('extensions') + name }
  if ('type' in record && name) {
    const module = typeof record.module === 'string' && record.module !== '' ? `${record.module}:` : ''
    return { kind: 'tools', key: `${kindPrefix('tools')}${module}${name}` }
  }
  return `has no key: put it under a folder named ${KINDS.map((k) => `${k}/`).join(', ')} (its path below names the key), as in examples/`
}
