import { readdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { checkRecords } from '../lib/catalog'
import type { Findings } from '../lib/catalog'
import { isRecordFile, readRecordFiles } from './files'
import type { Problem, RecordFile } from './files'
import { DONE, FAILED, misused, describeFailure } from './io'
import type { Io, Options } from './io'
import { checkLabels } from './labels'
import { catalogueReader, strictCheck } from './strict'
import type { CatalogueReader } from './strict'

/**
 * Reads and checks the files (folders: every record file under them),
 * printing every problem and a summary; answers the records when nothing is
 * wrong, undefined otherwise.
 */
export function validated(command: string, operands: readonly string[], io: Io): Promise<RecordFile[] | undefined> {
  return checked(command, operands, io, undefined)
}

/**
 * `validate <files...> [--strict ...]`: validated, and with --strict, the
 * prompts of the records that passed checked against the catalogue too.
 */
export async function validateCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  let reader: CatalogueReader | undefined
  if (values.strict) {
    const misuse = checkLabels('validate', { label: values.label }, io)
    if (misuse !== undefined) return misuse
    const found = catalogueReader(values, io)
    if ('misuse' in found) {
      return misused(io, 'validate', `validate --strict: ${found.misuse}`)
    }
    reader = found
  }
  return (await checked('validate', operands, io, reader)) ? DONE : FAILED
}

/** validated, and with a reader, strictCheck of the records whose files have no error. */
async function checked(
  command: string,
  operands: readonly string[],
  io: Io,
  reader: CatalogueReader | undefined,
): Promise<RecordFile[] | undefined> {
  if (operands.length === 0) {
    io.err(`${command}: name the files or folders to check`)
    return undefined
  }
  const found = await checkFiles(operands)
  if (reader) {
    const failed = new Set(found.errors.map((p) => p.file))
    const passed = found.records.filter((r) => !failed.has(r.file))
    try {
      const strict = await strictCheck(passed, reader)
      // The check warns of calls to tools the files do not hold, which may be published: the strict
      // check has judged every call against what is published, so those warnings say nothing more.
      const judged = new Set(passed.map((r) => r.file))
      found.warnings = found.warnings.filter((w) => !(judged.has(w.file) && w.unknownFunction))
      found.errors.push(...strict.errors)
      found.warnings.push(...strict.warnings)
    } catch (e) {
      found.errors.push({ file: reader.where, message: `cannot read the catalogue: ${describeFailure(e)}` })
    }
  }
  report(found, io)
  return found.errors.length > 0 ? undefined : found.records
}

/**
 * The records of the files (folders: every record file under them), checked
 * as validate checks them, for a command that reads them without
 * publishing (render --file): their errors printed, and undefined, when any
 * has one; warnings, which concern publishing, left out.
 */
export async function checkedRecords(operands: readonly string[], io: Io): Promise<RecordFile[] | undefined> {
  const { records, errors } = await checkFiles(operands)
  for (const problem of errors) io.err(`error: ${format(problem)}`)
  return errors.length > 0 ? undefined : records
}

/** What checking the files found: the files, their records, and every problem. */
interface Checked extends Findings {
  files: string[]
  records: RecordFile[]
}

async function checkFiles(operands: readonly string[]): Promise<Checked> {
  const files = await expand(operands)
  const read = await readRecordFiles(files)
  const checked = await checkRecords(read.records)
  return {
    files,
    records: read.records,
    errors: [...read.problems, ...checked.errors],
    warnings: [...read.warnings, ...checked.warnings],
  }
}

/** Every error, then every warning, then the summary (on stderr when anything is wrong). */
function report({ files, errors, warnings }: Checked, io: Io): void {
  for (const problem of errors) io.err(`error: ${format(problem)}`)
  for (const problem of warnings) io.err(`warning: ${format(problem)}`)
  const summary = `${plural(files.length, 'file')}: ${plural(errors.length, 'error')}, ${plural(warnings.length, 'warning')}`
  ;(errors.length > 0 ? io.err : io.out)(summary)
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
