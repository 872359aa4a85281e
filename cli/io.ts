import { hint } from './usage'
import type { Command } from './usage'

/** Where a command writes, and the environment it reads its defaults from. */
export interface Io {
  out: (line: string) => void
  err: (line: string) => void
  env: Record<string, string | undefined>
}

export const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
}

/** The options every command may be given (node:util parseArgs's values). */
export interface Options {
  url?: string | undefined
  token?: string | undefined
  api?: string | undefined
  'admin-token'?: string | undefined
  args?: string | undefined
  label?: string | undefined
  version?: string | undefined
  file?: string[] | undefined
  explain?: boolean | undefined
  message?: string | undefined
  from?: string | undefined
  to?: string | undefined
  'dry-run'?: boolean | undefined
  force?: boolean | undefined
  strict?: boolean | undefined
  json?: boolean | undefined
  summary?: string | undefined
  id?: string | undefined
  by?: string | undefined
  action?: string | undefined
  limit?: string | undefined
  cursor?: string | undefined
  sticky?: string | undefined
  end?: boolean | undefined
}

/** Exit statuses: done, failed, misused. */
export const DONE = 0
export const FAILED = 1
export const MISUSED = 2

/** Says a misuse on one line, `said` and where the rest is said (`command --help`); answers MISUSED. */
export function misused(io: Io, command: Command | undefined, said: string): number {
  io.err(`${said} (${hint(command)})`)
  return MISUSED
}

/** A failure as one line: `CODE: message` for the service's errors (local or remote), else the message. */
export function describeFailure(e: unknown): string {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code
    return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? `${code}: ${e.message}` : e.message
  }
  return String(e)
}
