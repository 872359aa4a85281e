/**
 * What `--help` prints, command by command, and the options each command
 * takes: an option a command does not take is a misuse, not silently
 * dropped (issue 31: `render --label` printed the base).
 */

/** Every option of any command, as node:util parseArgs declares them. */
export const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  api: { type: 'string' },
  'admin-token': { type: 'string' },
  args: { type: 'string' },
  label: { type: 'string' },
  version: { type: 'string' },
  file: { type: 'string', multiple: true },
  explain: { type: 'boolean' },
  message: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'dry-run': { type: 'boolean' },
  force: { type: 'boolean' },
  strict: { type: 'boolean' },
  json: { type: 'boolean' },
  summary: { type: 'string' },
  id: { type: 'string' },
  by: { type: 'string' },
  action: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  sticky: { type: 'string' },
  end: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

export type OptionName = keyof typeof OPTIONS

/** Where publish, versions, rollback, rollout, promote and audit go. */
const BACKEND_OPTIONS = ['url', 'token', 'api', 'admin-token'] as const

/** Each command: the options it takes (besides --help) and its section of the usage. */
export const COMMANDS = {
  validate: {
    options: ['strict', 'url', 'token', 'label'],
    usage: `  validate <files or folders...>
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
      AI_PROMPT_SHELL_URL names. --label reads that label's catalogue, else the base's.`,
  },
  publish: {
    options: ['label', 'message', 'dry-run', ...BACKEND_OPTIONS],
    usage: `  publish <files or folders...> [--label NAME] [--message M] [--dry-run]
      Validates, then writes every record with a new version, printing each key and version; a
      record whose key already holds the same text as its newest version is left as it is
      ('unchanged KEY  version N'), so publishing the same files twice writes one version.
      Directly to Redis it is one transaction; through the API (below) it is one PUT per record,
      not one transaction: a failure stops there and the records before it stay written.
      --label writes the label's own records (shenma:labels:NAME:...), not the base's.
      --message is kept with each version. --dry-run lists the keys instead, with no connection
      (so it cannot tell which are unchanged).`,
  },
  versions: {
    options: ['label', ...BACKEND_OPTIONS],
    usage: `  versions <extensions|prompts|environs|tools> <id> [--label NAME]
      The versions kept of a record, newest first: version, created_at, by (the publisher), message, deleted.
      With --label, the label's own record's when it has one, else the base's.`,
  },
  rollback: {
    options: ['to', 'label', 'message', ...BACKEND_OPTIONS],
    usage: `  rollback <extensions|prompts|environs|tools> <id> --to N [--label NAME] [--message M]
      Writes version N's record again, as a new version (message: 'rollback to version N').
      A version that is a deletion cannot be written again (exit 1).`,
  },
  rollout: {
    options: ['sticky', 'end', 'label', ...BACKEND_OPTIONS],
    usage: `  rollout <prompt_id> [VERSION=WEIGHT ...] [--sticky header:NAME|arg:NAME] [--end] [--label NAME]
      Without VERSION=WEIGHT, prints the rollout serving the prompt: each version and its weight,
      and what keeps a caller on one. With them (2 to 10, weights summing to 100, such as 7=90
      8=10), serves the prompt from those versions of its record: a render without --version
      picks one, by a hash of the prompt id and the --sticky header's or arg's value (a caller
      keeps its version while weights change), else at random. --end ends it: the newest version
      serves again. --label: the label's own record's rollout.`,
  },
  promote: {
    options: ['from', 'to', 'dry-run', 'message', 'force', ...BACKEND_OPTIONS],
    usage: `  promote --from NAME [--to NAME] [--dry-run] [--message M] [--force]
      Copies every record of label NAME onto the base (or label --to), each a new version there,
      and removes label NAME, in one transaction. --dry-run prints, per record, '+' (added),
      '-' (deleted) or '~' (changed) with its kind, id and key, then a line diff of its JSON,
      and writes nothing. Through a deployment's write API, the tests of the prompts the label
      changes (and of those reading a variable or calling a tool it changes) run first: when
      any fails, nothing is promoted and their report is printed as 'test' prints it (exit 1).
      --force promotes without running them (the versions' message says so).`,
  },
  audit: {
    options: ['id', 'by', 'action', 'limit', 'cursor', 'json', ...BACKEND_OPTIONS],
    usage: `  audit [--id ID] [--by NAME] [--action ACTION] [--limit N] [--cursor C] [--json]
      The audit trail, newest first: each write, deletion and promote made through the service
      (at, by, action, kind, id, label, versions), --limit N at most (default 50, at most 200).
      --id, --by and --action keep only the changes of that record id, publisher or action
      (write, delete, promote, rollback, rollout, rollout-end, promote-request, approve). When
      older changes remain, stderr says the --cursor that lists them; a filtered page looks
      through 10 x --limit changes at most, so it may be empty and still name one. --json
      prints each change as a JSON line. Through a deployment, the token may be API_TOKEN.`,
  },
  render: {
    options: ['args', 'url', 'token', 'label', 'version', 'explain', 'file'],
    usage: `  render <prompt_id> [--args JSON] [--label NAME] [--version N] [--explain] [--url URL] [--token TOKEN]
      Renders a prompt through a running service (default URL: AI_PROMPT_SHELL_URL, else
      http://127.0.0.1:8787) and prints it. TOKEN defaults to API_TOKEN. --label renders the
      label's prompt (without it, what the deployment serves by default); --version N that
      version of the prompt's record. --explain also prints, on stderr, what the templates read
      and call and where the time went.

  render <prompt_id> --file <file or folder> [--file ...] [--args JSON] [--explain]
      Renders with no server, with the service's own engine, from the record files given (read
      as validate reads them): the prompt, the tools it calls and the environs it reads must all
      be among them (--file examples gives the examples'). A tool with a relative URL is called
      under TOOLS_BASE_URL; RENDER_TIMEOUT_MS, TOOL_TIMEOUT_MS, TOOL_ALLOWED_HOSTS,
      TOOL_MAX_CALLS, TOOL_MAX_BYTES and ENVIRON_MAX_BYTES are read from the environment too.`,
  },
  test: {
    options: ['url', 'token', 'label', 'file', 'json', 'summary'],
    usage: `  test [prompt_ids...] [--label NAME] [--url URL] [--token TOKEN] [--json] [--summary FILE]
      Runs the test cases prompts keep in their 'tests' through a running service (default URL:
      AI_PROMPT_SHELL_URL, else http://127.0.0.1:8787; TOKEN defaults to API_TOKEN): those of the
      prompts named, else of every prompt that has cases. --label runs them against the label's
      records (without it, what the deployment serves by default). Prints a line per case
      (result, prompt, name, time), each failure below it with what was expected and what was
      found, then the counts; --json prints the report instead. --summary FILE also appends the
      report as Markdown to FILE (a CI job's summary: $GITHUB_STEP_SUMMARY). Exit status 1 when
      a case failed or could not run (skipped cases do not count).

  test [prompt_ids...] --file <file or folder> [--file ...] [--json] [--summary FILE]
      Runs them with no server, with the service's own engine, from the record files given (read
      as validate reads them), as render --file renders: answer assertions (assert_answer) are
      skipped, since no model is asked. Tools a case does not fix are called as render --file
      calls them; RENDER_TIMEOUT_MS, TEST_MAX_CASES and render's settings are read from the
      environment.`,
  },
} as const satisfies Record<string, { options: readonly OptionName[]; usage: string }>

export type Command = keyof typeof COMMANDS

const BACKENDS = `  Where publish, versions, rollback, rollout, promote and audit go:
      --url URL --token TOKEN      Upstash Redis directly (default: UPSTASH_REDIS_REST_URL and
                                   UPSTASH_REDIS_REST_TOKEN), keeping HISTORY_LIMIT versions of
                                   each record (default 50, at most 1000), as the Worker does.
      --api URL                    a deployment's write API (its secret ADMIN_TOKEN set); the
      --url URL --admin-token T    token is --admin-token, else ADMIN_TOKEN (versions, audit:
                                   else API_TOKEN). --url with ADMIN_TOKEN set and no --token is a
                                   deployment too; given nothing, AI_PROMPT_SHELL_URL and
                                   ADMIN_TOKEN name one.
      Without --label the base is meant, whatever the deployment's PROMPT_LABEL. A label is 1 to
      63 lowercase letters, digits and hyphens, starting with a letter or digit.`

const EXIT = '  Exit status: 0 done, 1 failed, 2 misused.'

/** The whole usage, or one command's (with where it goes, when it writes). */
export function usage(command?: Command): string {
  if (command === undefined) {
    const sections = Object.values(COMMANDS).map((c) => c.usage)
    return ['usage: ai-prompt-shell <command> [options]', ...sections, BACKENDS, EXIT, ''].join('\n\n')
  }
  const { options, usage } = COMMANDS[command]
  const goes = (options as readonly OptionName[]).includes('api') ? [BACKENDS] : []
  return [`usage: ai-prompt-shell ${command} ...`, usage, ...goes, EXIT, ''].join('\n\n')
}

/** What a misuse's line ends with: where the rest is said. */
export function hint(command?: Command): string {
  return command === undefined
    ? "run 'ai-prompt-shell --help' for the commands"
    : `run 'ai-prompt-shell ${command} --help' for its usage`
}

export function isCommand(name: string): name is Command {
  return Object.hasOwn(COMMANDS, name)
}
