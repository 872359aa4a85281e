#!/usr/bin/env node
// `npm run preview [-- --dry-run]`: uploads this branch's Worker as a preview
// version, `wrangler versions upload --preview-alias <alias>`, where the alias
// comes from the branch (GITHUB_HEAD_REF or GITHUB_REF_NAME in Actions, else
// the checked-out branch). The preview answers at
// https://<alias>-<worker>.<subdomain>.workers.dev. Extra arguments go to wrangler.
import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** A DNS label holds at most 63 characters, and the preview host is `<alias>-<worker>`. */
const LABEL = 63

/**
 * The preview alias of a branch: lowercase letters, digits and hyphens,
 * starting with a letter, short enough that `<alias>-<worker>` is one DNS
 * label. A branch that had to be changed to fit gets a short hash of its
 * name, so that `feature/a` and `feature-a` keep different previews.
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

function currentBranch() {
  const fromActions = process.env.GITHUB_HEAD_REF || process.env.GITHUB_REF_NAME
  if (fromActions) return fromActions
  return execFileSync('git', ['branch', '--show-current'], { encoding: 'utf8' }).trim()
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const worker = /^name\s*=\s*"([^"]+)"/m.exec(readFileSync(new URL('../wrangler.toml', import.meta.url), 'utf8'))?.[1]
  const alias = previewAlias(currentBranch(), worker ?? 'ai-prompt-shell')
  const args = ['wrangler', 'versions', 'upload', '--minify', '--preview-alias', alias, ...process.argv.slice(2)]
  console.log(`npx ${args.join(' ')}`)
  const { status } = spawnSync('npx', args, { stdio: 'inherit' })
  process.exit(status ?? 1)
}
