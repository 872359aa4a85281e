#!/usr/bin/env node
// `npx ai-prompt-shell`: runs the CLI (cli/index.ts). In a checkout it is
// bundled first with esbuild (a fraction of a second), so it always runs the
// current sources; a packed copy runs the bundle made when it was packed.
// Dependencies stay external: they come from node_modules either way.
import { existsSync, renameSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = new URL('..', import.meta.url)
const bundle = new URL('dist/cli/ai-prompt-shell.mjs', root)
const source = new URL('cli/index.ts', root)

if (existsSync(source)) {
  const { build } = await import('esbuild')
  // Written aside, then renamed into place: two runs at once never read a half-written bundle.
  const written = `${fileURLToPath(bundle)}.${process.pid}.tmp`
  await build({
    entryPoints: [fileURLToPath(source)],
    outfile: written,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  })
  renameSync(written, fileURLToPath(bundle))
}
const { main } = await import(bundle.href)
process.exitCode = await main(process.argv.slice(2))
