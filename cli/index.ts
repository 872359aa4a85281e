import { parseArgs } from 'node:util'
import { auditCommand } from './audit'
import { DONE, defaultIo, misused } from './io'
import type { Io, Options } from './io'
import { promoteCommand } from './promote'
import { publishCommand } from './publish'
import { renderCommand } from './render'
import { rolloutCommand } from './rollout'
import { testCommand } from './test'
import { COMMANDS, OPTIONS, isCommand, usage } from './usage'
import type { Command, OptionName } from './usage'
import { validateCommand } from './validate'
import { rollbackCommand, versionsCommand } from './versions'

export type { Io } from './io'

/**
 * `ai-prompt-shell`: the command line for extension authors. It checks
 * record files as the service reads them, publishes them (with versions, to
 * the base or a label), lists and rolls back versions, rolls a prompt out
 * between versions, promotes a label, lists the audit trail,
 * renders a prompt and runs prompts' test cases, through a running service
 * or from files.
 */
const RUN: Record<Command, (operands: readonly string[], values: Options, io: Io) => Promise<number>> = {
  validate: validateCommand,
  publish: publishCommand,
  versions: versionsCommand,
  rollback: rollbackCommand,
  rollout: rolloutCommand,
  promote: promoteCommand,
  audit: auditCommand,
  render: renderCommand,
  test: testCommand,
}

/** Runs one command; resolves to the exit status (0 done, 1 failed, 2 misused). */
export async function main(argv: readonly string[], io: Io = defaultIo): Promise<number> {
  // Named before parsing, so that a misuse of the options points at the command's own --help.
  const named = argv.find(isCommand)
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS })
  } catch (e) {
    return misused(io, named, `${named ?? 'ai-prompt-shell'}: ${parseProblem(e)}`)
  }
  const { values, positionals } = parsed
  const [command, ...operands] = positionals
  if (command === 'help' || command === undefined) {
    const about = operands[0]
    if (about !== undefined && !isCommand(about)) {
      return misused(io, undefined, `ai-prompt-shell: there is no command '${about}'`)
    }
    if (command === undefined && !values.help) {
      return misused(io, undefined, `ai-prompt-shell: name a command: ${Object.keys(COMMANDS).join(', ')}`)
    }
    io.out(usage(about))
    return DONE
  }
  if (!isCommand(command)) return misused(io, undefined, `ai-prompt-shell: there is no command '${command}'`)
  if (values.help) {
    io.out(usage(command))
    return DONE
  }
  const taken: readonly string[] = COMMANDS[command].options
  const foreign = (Object.keys(values) as OptionName[]).find((name) => name !== 'help' && !taken.includes(name))
  if (foreign !== undefined) return misused(io, command, `${command}: takes no --${foreign}`)
  return RUN[command](operands, values, io)
}

/** What node:util parseArgs refused, said shortly: its own messages run on with advice about `--`. */
function parseProblem(e: unknown): string {
  const { code, message } = e as { code?: string; message?: string }
  const option = /'(-[^' ]*)/.exec(message ?? '')?.[1]
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `there is no option ${option}`
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return OPTIONS[option?.replace(/^--/, '') as OptionName]?.type === 'boolean'
        ? `${option} takes no value`
        : `${option} needs a value`
    default:
      return String(message).split('\n')[0] as string
  }
}
