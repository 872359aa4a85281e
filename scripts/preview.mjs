#!/usr/bin/env node
// `npm run preview [-- --dry-run]`: uploads this branch's Worker as a preview
// version, `wrangler versions upload --preview-alias <alias> --var PROMPT_LABEL:<alias>`,
// where the alias comes from the branch (GITHUB_HEAD_REF or GITHUB_REF_NAME in
// Actions, else the checked-out branch). The preview answers at
// https://<alias>-<worker>.<subdomain>.workers.dev and reads label <alias>: its
// own records over the base's. Before uploading, the branch's record files
// (RECORDS_DIR, `records/` at the repository's root) are published into that
// label (`ai-prompt-shell publish records/ --label <alias>`, which needs
// UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN); without the folder,
// nothing is published. After the upload, when AI_PROMPT_SHELL_URL names the
// deployment (API_TOKEN its token), the label's prompt tests run through it
// (`ai-prompt-shell test --label <alias>`), their report appended as Markdown
// to GITHUB_STEP_SUMMARY when set; a failing test fails the run. With
// --dry-run nothing is published, uploaded or tested: the records are
// validated and their keys listed, and the Worker is built.
// Extra arguments go to wrangler. `npm run preview -- --alias [BRANCH]` prints
// the alias (of the current branch, or of BRANCH) and does nothing else.
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** A DNS label holds at most 63 characters, and the preview host is `<alias>-<worker>`. */
const LABEL = 63

/** The folder of record files a preview publishes into its label, as docs/versions-and-previews.md documents. */
export const RECORDS_DIR = 'records'

/**
 * The preview alias of a branch: lowercase letters, digits and hyphens,
 * starting with a letter, short enough that `<alias>-<worker>` is one DNS
 * label. A branch that had to be changed to fit gets a short hash of its
 * name, so that `feature/a` and `feature-a` keep different previews. It is
 * also the preview's label (lib/store/keys.ts LABEL_PATTERN).
 */
export function previewAlias(branch, worker) {
  const room = LABEL - worker.length - 1
  if (!branch) throw new Error('no branch name to make a preview alias from')
  if (room < 10) throw new Error(`the Worker name '${worker}' leaves no room for a preview alias`)
  let alias = branch
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
  if (!/^[a-z]/.test(alias)) alias = `b-${alias}`.replace(/-+$/, '')
  if (alias === branch && alias.length <= room) return alias
  const hash = createHash('sha256').update(branch).digest('hex').slice(0, 6)
  return `${alias.slice(0, room - hash.length - 1).replace(/-+$/, '')}-${hash}`
}

/**
 * The commands a preview runs, in order: publishing the records into the
 * label (none without the folder), the upload, then the label's prompt tests
 * (`ai-prompt-shell test --label <alias>`) when a deployment is named to run
 * them (`testing`: AI_PROMPT_SHELL_URL is set) and records were published,
 * their report appended as Markdown to `summary` (the job summary) when
 * given. They run after the upload so that a failing test still leaves a
 * preview to look at, and fail the run. `dryRun` publishes nothing, uploads
 * nothing and tests nothing.
 */
export function previewCommands({ alias, args, dryRun, recordsExist, message, testing = false, summary = '' }) {
  const commands = []
  if (recordsExist) {
    const publish = ['bin/ai-prompt-shell.mjs', 'publish', `${RECORDS_DIR}/`, '--label', alias]
    commands.push(['node', dryRun ? [...publish, '--dry-run'] : [...publish, '--message', message]])
  }
  const upload = ['wrangler', 'versions', 'upload', '--minify', '--preview-alias', alias]
  commands.push(['npx', [...upload, '--var', `PROMPT_LABEL:${alias}`, ...args]])
  if (recordsExist && testing && !dryRun) {
    const test = ['bin/ai-prompt-shell.mjs', 'test', '--label', alias]
    commands.push(['node', summary ? [...test, '--summary', summary] : test])
  }
  return commands
}

function currentBranch() {
  const fromActions = process.env.GITHUB_HEAD_REF || process.env.GITHUB_REF_NAME
  if (fromActions) return fromActions
  return execFileSync('git', ['branch', '--show-current'], { encoding: 'utf8' }).trim()
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const worker = /^name\s*=\s*"([^"]+)"/m.exec(readFileSync(new URL('../wrangler.toml', import.meta.url), 'utf8'))?.[1]
  const args = process.argv.slice(2)
  if (args[0] === '--alias') {
    console.log(previewAlias(args[1] ?? currentBranch(), worker ?? 'ai-prompt-shell'))
    process.exit(0)
  }
  const branch = currentBranch()
  const alias = previewAlias(branch, worker ?? 'ai-prompt-shell')
  const recordsExist = existsSync(new URL(`../${RECORDS_DIR}`, import.meta.url))
  if (!recordsExist) console.log(`no ${RECORDS_DIR}/ folder: no records to publish into label ${alias}`)
  const sha = process.env.GITHUB_SHA
  const message = `preview of branch ${branch}${sha ? ` at ${sha.slice(0, 12)}` : ''}`
  const dryRun = args.includes('--dry-run')
  const testing = Boolean(process.env.AI_PROMPT_SHELL_URL)
  if (recordsExist && !testing && !dryRun) {
    console.log(`no AI_PROMPT_SHELL_URL: the tests of label ${alias} are not run`)
  }
  const summary = process.env.GITHUB_STEP_SUMMARY || undefined
  const planned = previewCommands({ alias, args, dryRun, recordsExist, message, testing, summary })
  for (const [command, commandArgs] of planned) {
    console.log([command, ...commandArgs].map((a) => (/[\s'"]/.test(a) ? `'${a}'` : a)).join(' '))
    const { status } = spawnSync(command, commandArgs, { stdio: 'inherit', cwd: root })
    if (status !== 0) process.exit(status ?? 1)
  }
}
