import { parseArgs } from 'node:util'
import { DONE, MISUSED, defaultIo } from './io'
import type { Io, Options } from './io'
import { promoteCommand } from './promote'
import { publishCommand } from './publish'
import { renderCommand } from './render'
import { validateCommand } from './validate'
import { rollbackCommand, versionsCommand } from './versions'
import { describeError } from '../lib/log'

export type { Io } from './io'

/**
 * `ai-prompt-shell`: the command line for extension authors. It checks
 * record files as the service reads them, publishes them (with versions, to
 * the base or a label), lists and rolls back versions, promotes a label, and
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

  validate --strict <files or folders...> [--url URL] [--token TOKEN] [--label NAME]
      Also checks each prompt against the published catalogue, with the files' own tools and
      environs added: every path a template reads is a shared variable (under .args, a declared
      parameter), every function is a builtin, a helper, dict or a tool, and no tool is called
      with more operands than it declares. Each problem is named with the template's line and
      column. The catalogue is read from the deployment at --url (as for render: TOKEN defaults
      to API_TOKEN); without --url, from Upstash (UPSTASH_REDIS_REST_URL and
      UPSTASH_REDIS_REST_TOKEN, --token replacing the latter), else from the deployment
      AI_PROMPT_SHELL_URL names. --label reads that label's catalogue, else the base's.

  publish <files or folders...> [--label NAME] [--message M] [--dry-run]
      Validates, then writes every record with a new version, printing each key and version.
      Directly to Redis it is one transaction; through the API (below) it is one PUT per record,
      not one transaction: a failure stops there and the records before it stay written.
      --label writes the label's own records (shenma:labels:NAME:...), not the base's.
      --message is kept with each version. --dry-run lists the keys instead, with no connection.

  versions <extensions|prompts|environs|tools> <id> [--label NAME]
      The versions kept of a record, newest first: version, created_at, message, deleted.
      With --label, the label's own record's when it has one, else the base's.

  rollback <extensions|prompts|environs|tools> <id> --to N [--label NAME] [--message M]
      Writes version N's record again, as a new version (message: 'rollback to version N').
      A version that is a deletion cannot be written again (exit 1).

  promote --from NAME [--to NAME] [--dry-run] [--message M]
      Copies every record of label NAME onto the base (or label --to), each a new version there,
      and removes label NAME, in one transaction. --dry-run prints, per record, '+' (added),
      '-' (deleted) or '~' (changed) with its kind, id and key, then a line diff of its JSON,
      and writes nothing.

  render <prompt_id> [--args JSON] [--url URL] [--token TOKEN]
      Renders a prompt through a running service (default URL: AI_PROMPT_SHELL_URL, else
      http://127.0.0.1:8787) and prints it. TOKEN defaults to API_TOKEN.

  Where publish, versions, rollback and promote go:
      --url URL --token TOKEN      Upstash Redis directly (default: UPSTASH_REDIS_REST_URL and
                                   UPSTASH_REDIS_REST_TOKEN), keeping HISTORY_LIMIT versions of
                                   each record (default 50, at most 1000), as the Worker does.
      --api URL                    a deployment's write API (its secret ADMIN_TOKEN set); the
      --url URL --admin-token T    token is --admin-token, else ADMIN_TOKEN (versions: else
                                   API_TOKEN). --url with ADMIN_TOKEN set and no --token is a
                                   deployment too; given nothing, AI_PROMPT_SHELL_URL and
                                   ADMIN_TOKEN name one.
      Without --label the base is meant, whatever the deployment's PROMPT_LABEL. A label is 1 to
      63 lowercase letters, digits and hyphens, starting with a letter or digit.

  Exit status: 0 done, 1 failed, 2 misused.
`

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
        api: { type: 'string' },
        'admin-token': { type: 'string' },
        args: { type: 'string' },
        label: { type: 'string' },
        message: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        'dry-run': { type: 'boolean' },
        strict: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (e) {
    io.err(`${describeError(e)}\n\n${USAGE}`)
    return MISUSED
  }
  const { values, positionals } = parsed
  const [command, ...operands] = positionals
  if (values.help || command === undefined || command === 'help') {
    io.out(USAGE)
    return command === undefined && !values.help ? MISUSED : DONE
  }
  const options: Options = values
  switch (command) {
    case 'validate':
      return validateCommand(operands, options, io)
    case 'publish':
      return publishCommand(operands, options, io)
    case 'versions':
      return versionsCommand(operands, options, io)
    case 'rollback':
      return rollbackCommand(operands, options, io)
    case 'promote':
      return promoteCommand(operands, options, io)
    case 'render':
      return renderCommand(operands, options, io)
    default:
      io.err(`unknown command '${command}'\n\n${USAGE}`)
      return MISUSED
  }
}
