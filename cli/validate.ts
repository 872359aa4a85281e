import { readdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { checkRecords } from '../lib/catalog'
import { isRecordFile, readRecordFiles } from './files'
import type { Problem, RecordFile } from './files'
import type { Io } from './io'

/**
 * Reads and checks the files (folders: every record file under them),
 * printing every problem and a summary; answers the records when nothing is
 * wrong, undefined otherwise.
 */
export async function validated(
  command: string,
  operands: readonly string[],
  io: Io,
): Promise<RecordFile[] | undefined> {
  if (operands.length === 0) {
    io.err(`${command}: name the files or folders to check`)
    return undefined
  }
  const files = await expand(operands)
  const read = await readRecordFiles(files)
  const checked = checkRecords(read.records)
  const allErrors = [...read.problems, ...checked.errors]
  const warnings = [...read.warnings, ...checked.warnings]
  for (const problem of allErrors) io.err(`error: ${format(problem)}`)
  for (const problem of warnings) io.err(`warning: ${format(problem)}`)
  const summary = `${plural(files.length, 'file')}: ${plural(allErrors.length, 'error')}, ${plural(warnings.length, 'warning')}`
  ;(allErrors.length > 0 ? io.err : io.out)(summary)
  return allErrors.length > 0 ? undefined : read.records
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

function format({ file, where, message }: Problem): string {
  return where ? `${file}: ${where}: ${message}` : `${file}: ${message}`
}

/**
 * Files as given; folders as every record file under them (isRecordFile: the
 * .json files, and any file below environs/), in name order. A file named
 * twice counts once.
 */
async function expand(paths: readonly string[]): Promise<string[]> {
  const files: string[] = []
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined)
    if (!info?.isDirectory()) {
      files.push(path)
      continue
    }
    const entries = await readdir(path, { recursive: true, withFileTypes: true })
    files.push(
      ...entries
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name))
        .filter(isRecordFile)
        .sort(),
    )
  }
  return [...new Map(files.map((file) => [resolve(file), file])).values()]
}
