// Loads one of our TypeScript entry points in Node (the CLI, the dev tools):
// Node 20 runs no TypeScript, so in a checkout the entry is bundled first with
// esbuild (a fraction of a second) and always runs the current sources; a
// packed copy without the sources loads the bundle made when it was packed.
// Dependencies stay external: they come from node_modules either way.
import { existsSync, renameSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = new URL('..', import.meta.url)

/**
 * Imports `source` (a path from the repository's root, e.g. `cli/index.ts`),
 * bundled to `bundle` (likewise, e.g. `dist/cli/ai-prompt-shell.mjs`).
 */
export async function loadTs(source, bundle) {
  const sourceUrl = new URL(source, root)
  const bundleUrl = new URL(bundle, root)
  if (existsSync(sourceUrl)) {
    const { build } = await import('esbuild')
    // Written aside, then renamed into place: two runs at once never read a half-written bundle.
    const written = `${fileURLToPath(bundleUrl)}.${process.pid}.tmp`
    await build({
      entryPoints: [fileURLToPath(sourceUrl)],
      outfile: written,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    })
    renameSync(written, fileURLToPath(bundleUrl))
  }
  return import(bundleUrl.href)
}
