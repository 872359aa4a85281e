#!/usr/bin/env node
// CI's bundle check: builds the Worker as `wrangler deploy --dry-run --minify`
// does and fails (exit status 1) when its gzip size passes the tripwire, 400 KiB
// unless --limit-kib says otherwise, or when it lacks a module of a package the
// design names (REQUIRED_PACKAGES). Prints the largest packages either way,
// so that a failure shows where the bytes went.
//
//   node scripts/check-bundle-size.mjs [--limit-kib 400]
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { GZIP_BUDGET_BYTES, buildWorker, composition, missingPackages } from './bundle-size.mjs'

const TOP = 10

const { values } = parseArgs({
  options: { 'limit-kib': { type: 'string', default: String(GZIP_BUDGET_BYTES / 1024) } },
})
const limitKib = Number(values['limit-kib'])
if (!(limitKib > 0)) throw new Error(`--limit-kib must be a positive number of KiB, not ${values['limit-kib']}`)

const outdir = mkdtempSync(join(os.tmpdir(), 'bundle-size-'))
try {
  const worker = buildWorker(outdir)
  for (const { owner, bytes, share } of composition(worker.metafile).slice(0, TOP)) {
    console.log(
      `${owner.padEnd(36)} ${(bytes / 1024).toFixed(1).padStart(8)} KiB  ${(100 * share).toFixed(1).padStart(5)} %`,
    )
  }
  // wrangler's figure is the one a deploy reports; ours, computed the same way, stands in if its output changes.
  const gzipKib = worker.wranglerReport?.gzipKib ?? worker.gzipBytes / 1024
  const verdict = gzipKib <= limitKib ? 'within' : 'OVER'
  console.log(`bundle: ${gzipKib.toFixed(2)} KiB gzip, ${verdict} the budget of ${limitKib} KiB`)
  if (gzipKib > limitKib) process.exitCode = 1
  const missing = missingPackages(worker.metafile)
  if (missing.length > 0) {
    console.log(`bundle: no module of ${missing.join(', ')}, which the Worker is to run`)
    process.exitCode = 1
  }
} finally {
  rmSync(outdir, { recursive: true, force: true })
}
