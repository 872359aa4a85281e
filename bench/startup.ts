/**
 * Startup: workerd's CPU from a fresh start to the first answer (`GET
 * /health`), for the Worker and for a Worker of a few lines
 * (bench/dev-server-floor.ts), in the same run. Each is bundled once as
 * `wrangler deploy --minify` would, then started RUNS times, alternating,
 * in a fresh Miniflare with no bindings (the Worker on its embedded store).
 * The bundle is listed to Miniflare as one module, so that Miniflare's own
 * scan of it for imports, which Cloudflare does not do, stays out. The CPU
 * is workerd's user and system time at the first answer (/proc), which
 * counts Miniflare's own Workers alike for both: the difference of the
 * medians is what the Worker costs a cold start. bench/run.mjs runs it:
 *
 *   node startup.mjs --root DIR [--runs 20]
 *
 * and it prints {"runs": 20, "trivialMs": [...], "workerMs": [...], "trivialMedianMs": 75, "workerMedianMs": 200}.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import { basename, extname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { parseArgs } from 'node:util'
import { Miniflare } from 'miniflare'
import { median, positive, run } from './stats'
import { childrenCpuMs } from './worker'

const DEFAULT_RUNS = 20

/** The bundle of `script` (wrangler.toml's `main` when undefined), as `wrangler deploy --minify` makes it. */
function bundleOf(root: string, script: string | undefined): string {
  const outdir = mkdtempSync(join(os.tmpdir(), 'bench-startup-'))
  try {
    const built = spawnSync(
      'npx',
      ['wrangler', 'deploy', ...(script ? [script] : []), '--dry-run', '--minify', '--outdir', outdir],
      {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
      },
    )
    if (built.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${built.stdout}\n${built.stderr}`)
    // wrangler names the bundle after its entry: index.js for wrangler.toml's.
    return readFileSync(join(outdir, script ? `${basename(script, extname(script))}.js` : 'index.js'), 'utf8')
  } finally {
    rmSync(outdir, { recursive: true, force: true })
  }
}

/** workerd's CPU, in ms, from its start to the first answer of a Worker whose bundle is `contents`. */
async function coldStart(contents: string): Promise<number> {
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: 'index.js', contents }],
    compatibilityDate: '2026-04-26',
    compatibilityFlags: ['nodejs_compat'],
    host: '127.0.0.1',
    // The Worker's log lines are not this script's output, which is its JSON.
    handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
      stdout.resume()
      stderr.resume()
    },
  })
  try {
    const url = await mf.ready
    const response = await fetch(new URL('/health', url))
    await response.arrayBuffer()
    if (response.status !== 200) throw new Error(`GET /health answered ${response.status}`)
    return childrenCpuMs('workerd')
  } finally {
    await mf.dispose()
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { root: { type: 'string' }, runs: { type: 'string' } } })
  if (!values.root) throw new Error('--root (the repository) is required')
  const runs = values.runs === undefined ? DEFAULT_RUNS : positive('runs', values.runs)
  const worker = bundleOf(values.root, undefined)
  const trivial = bundleOf(values.root, join('bench', 'dev-server-floor.ts'))
  const trivialMs: number[] = []
  const workerMs: number[] = []
  // Alternating, so that a slower stretch of the machine weighs on both alike.
  for (let i = 0; i < runs; i++) {
    trivialMs.push(await coldStart(trivial))
    workerMs.push(await coldStart(worker))
  }
  const medians = { trivialMedianMs: median(trivialMs), workerMedianMs: median(workerMs) }
  process.stdout.write(`${JSON.stringify({ runs, trivialMs, workerMs, ...medians })}\n`)
}

run(main)
