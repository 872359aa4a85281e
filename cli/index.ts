import { readdir, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { checkRecords } from '../lib/catalog'
import { isRecordFile, readRecordFiles } from './files'
import type { Problem } from './files'
import { describeWrites, publish } from './publish'
import { renderRemote } from './render'

/**
 * `ai-prompt-shell`: the command line for extension authors. It checks
 * record files as the service reads them, publishes them to Redis, and
 * renders a prompt through a running service.
 */
const USAGE = `usage: ai-prompt-shell <command> [options]

  validate <files or folders...>
      Checks extension, prompt and tool JSON files against jsonschema/ and parses every template,
      reporting every problem of every file. A file's key comes from its path, as in examples/
      (tools/codebase/lookup_ref.json is shenma:tools:codebase:lookup_ref). Below environs/, any
      file is an environ, its key the path without its extension: a .json file is JSON (or, when
      it is not JSON and does not open with { or [, its text), any other file is bare text.
      Exit status 1 on any error.

  publish <files or folders...> [--url URL] [--token TOKEN] [--dry-run]
      Validates, then writes the records under their shenma: keys in one transaction.
      URL and TOKEN default to UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN.
      --dry-run lists the keys instead.

  render <prompt_id> [--args JSON] [--url URL] [--token TOKEN]
      Renders a prompt through a running service (default URL: AI_PROMPT_SHELL_URL, else
      http://127.0.0.1:8787) and prints it. TOKEN defaults to API_TOKEN.
`

export interface Io {
  out: (line: string) => void
  err: (line: string) => void
  env: Record<string, string | undefined>
}

const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
}

/** Runs one command; resolves to the exit status (0 done, 1 failed, 2 misused). */
export async function main(argv: readonly string[], io: Io = defaultIo): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        args: { type: 'string' },
        'dry-run': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (e) {
    io.err(`${e instanceof Error ? e.message : String(e)}\n\n${USAGE}`)
    return 2
  }
  const { values, positionals } = parsed
  const [command, ...operands] = positionals
  if (values.help || command === undefined || command === 'help') {
    io.out(USAGE)
    return command === undefined && !values.help ? 2 : 0
  }
  switch (command) {
    case 'validate':
      return (await validated(operands, io)) ? 0 : 1
    case 'publish':
      return publishCommand(operands, values, io)
    case 'render':
      return renderCommand(operands, values, io)
    default:
      io.err(`unknown command '${command}'\n\n${USAGE}`)
      return 2
  }
}

/** Reads and checks the files, printing what is wrong; the records when nothing is. */
async function validated(operands: readonly string[], io: Io) {
  if (operands.length === 0) {
    io.err('validate: name the files or folders to check')
    return undefined
  }
  const files = await expand(operands)
  const read = await readRecordFiles(files)
  const checked = checkRecords(read.records)
  const allErrors = [...read.problems, ...checked.errors]
  const warnings = [...read.warnings, ...checked.warnings]
  for (const problem of allErrors) io.err(`error: ${format(problem)}`)
  for (const problem of warnings) io.err(`warning: ${format(problem)}`)
  const summary = `${files.length} file${files.length === 1 ? '' : 's'}: ${allErrors.length} error${allErrors.length === 1 ? '' : 's'}, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}`
  ;(allErrors.length > 0 ? io.err : io.out)(summary)
  return allErrors.length > 0 ? undefined : read.records
}

async function publishCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  const records = await validated(operands, io)
  if (!records) return 1
  if (values['dry-run']) {
    for (const line of describeWrites(records)) io.out(line)
    return 0
  }
  const url = values.url ?? io.env.UPSTASH_REDIS_REST_URL
  const token = values.token ?? io.env.UPSTASH_REDIS_REST_TOKEN
  if (!url || !token) {
    io.err('publish: give --url and --token, or set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN')
    return 2
  }
  try {
    await publish(records, { url, token })
  } catch (e) {
    io.err(`publish failed, nothing was written: ${e instanceof Error ? e.message : String(e)}`)
    return 1
  }
  for (const line of describeWrites(records)) io.out(line)
  io.out(`published ${records.length} record${records.length === 1 ? '' : 's'} to ${url}`)
  return 0
}

async function renderCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  const [id, ...extra] = operands
  if (id === undefined || extra.length > 0) {
    io.err('render: name one prompt id, e.g. render evaluator.quick_review --args \'{"code": "..."}\'')
    return 2
  }
  let args: unknown = {}
  try {
    if (values.args !== undefined) args = JSON.parse(values.args)
  } catch (e) {
    io.err(`render: --args is not valid JSON: ${e instanceof Error ? e.message : String(e)}`)
    return 2
  }
  const base = values.url ?? io.env.AI_PROMPT_SHELL_URL ?? 'http://127.0.0.1:8787'
  try {
    const result = await renderRemote(base, id, args, values.token ?? io.env.API_TOKEN)
    for (const warning of result.warnings) io.err(`warning: ${warning}`)
    ;(result.ok ? io.out : io.err)(result.text)
    return result.ok ? 0 : 1
  } catch (e) {
    io.err(`render: cannot reach ${base}: ${e instanceof Error ? e.message : String(e)}`)
    return 1
  }
}

type Options = { url?: string; token?: string; args?: string; 'dry-run'?: boolean }

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
