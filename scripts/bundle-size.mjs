// The Worker bundle as a deploy builds it, and what it is made of: shared by
// scripts/check-bundle-size.mjs (CI's budget check) and the size section of
// `npm run bench`.
import { spawnSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * A tripwire on the bundle's gzip size, not its budget: Cloudflare no longer
 * limits compressed size, and what a bigger bundle costs is startup CPU,
 * which bytes predict only in part (parsing; what runs at load costs more).
 * Past this, something grew that nobody meant to.
 */
export const GZIP_BUDGET_BYTES = 400 * 1024

/**
 * Runs `wrangler deploy --dry-run --minify` into `outdir`, as a deploy would
 * bundle (the build step included), and resolves to what it wrote: the
 * modules it would upload (not the source map or README beside them), their
 * gzip size together (`node:zlib`, as wrangler computes it), wrangler's own
 * report of it, and esbuild's metafile.
 */
export function buildWorker(outdir) {
  const metafilePath = join(outdir, 'metafile.json')
  const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' }
  const args = ['wrangler', 'deploy', '--dry-run', '--outdir', outdir, '--minify', '--metafile', metafilePath]
  const built = spawnSync('npx', args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (built.status !== 0)
    throw new Error(`npx ${args.join(' ')} failed (${built.signal ?? `exit status ${built.status}`})`)
  const output = built.stdout
  const files = readdirSync(outdir)
    .filter((f) => !f.endsWith('.map') && f !== 'README.md' && f !== 'metafile.json')
    .sort()
  if (files.length === 0) throw new Error(`wrangler wrote no module into ${outdir}`)
  const modules = files.map((name) => ({ name, bytes: readFileSync(join(outdir, name)) }))
  const reported = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output.replace(/\x1b\[[0-9;]*m/g, ''))
  return {
    modules,
    gzipBytes: gzipSync(Buffer.concat(modules.map((m) => m.bytes))).length,
    wranglerReport: reported ? { kib: Number(reported[1]), gzipKib: Number(reported[2]) } : undefined,
    metafile: JSON.parse(readFileSync(metafilePath, 'utf8')),
  }
}

/**
 * The packages the design names for the Worker's work (issue 28): Redis,
 * the LLM providers, the records' validators, gRPC. A bundle without one of
 * them has a hand-made stand-in somewhere.
 */
export const REQUIRED_PACKAGES = ['@upstash/redis', 'openai', 'ajv', '@connectrpc/connect-web']

/** Those of REQUIRED_PACKAGES the bundle has no module of. */
export function missingPackages(metafile) {
  const present = new Set(composition(metafile).map(({ owner }) => owner))
  return REQUIRED_PACKAGES.filter((name) => !present.has(name))
}

/**
 * The bundle's bytes by package, largest first, from esbuild's metafile:
 * each input's `bytesInOutput` (its share of the minified module) summed per
 * npm package, and per folder for the project's own files.
 */
export function composition(metafile) {
  const bytes = new Map()
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs ?? {})) {
      const owner = ownerOf(input)
      bytes.set(owner, (bytes.get(owner) ?? 0) + bytesInOutput)
    }
  }
  const total = [...bytes.values()].reduce((sum, b) => sum + b, 0)
  return [...bytes]
    .map(([owner, b]) => ({ owner, bytes: b, share: total === 0 ? 0 : b / total }))
    .sort((a, b) => b.bytes - a.bytes || a.owner.localeCompare(b.owner))
}

/**
 * `node_modules/@scope/pkg/x.js` is `@scope/pkg`; a copy nested in another
 * package's node_modules is named with it (`a > zod`), so that a duplicate
 * shows as a row of its own; `lib/store/x.ts` is `lib/store (ours)`.
 */
export function ownerOf(input) {
  const [ours, ...packages] = input.split(/(?:^|\/)node_modules\//)
  if (packages.length > 0) {
    return packages
      .map((path) => {
        const [first, second] = path.split('/')
        return first.startsWith('@') ? `${first}/${second}` : first
      })
      .join(' > ')
  }
  const parts = ours.split('/')
  if (parts[0] === 'lib') return `${parts.length > 2 ? `lib/${parts[1]}` : 'lib/*.ts'} (ours)`
  return `${parts.length > 1 ? parts[0] : ours} (ours)`
}
