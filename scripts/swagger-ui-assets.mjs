// Copies the Swagger UI files that /docs loads from the pinned swagger-ui-dist
// package into public/swagger-ui/, which wrangler.toml's [assets] serves from
// the Worker's own origin: the page needs no CDN and works offline. The
// folder is git-ignored and filled by wrangler's build step
// (scripts/generate.mjs), which runs before `wrangler dev`, `deploy` and
// `versions upload` look at [assets]; public/ itself is committed (with its
// .assetsignore) because vitest-pool-workers reads [assets] without building.
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Where the files go, below the [assets] directory: served as /swagger-ui/{file}. */
const SWAGGER_UI_DIR = join(root, 'public', 'swagger-ui')

/** What functions/docs.ts's page loads, and the licence that must travel with it. */
const FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png', 'LICENSE', 'NOTICE']

/**
 * Copies FILES into SWAGGER_UI_DIR. An unchanged file is not rewritten (wrangler dev watches the folder), and
 * a changed one is written aside and renamed into place: builds running at once (one `wrangler dev` per
 * end-to-end test file) never serve a half-written file.
 */
export function copySwaggerUi() {
  const from = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  mkdirSync(SWAGGER_UI_DIR, { recursive: true })
  let copied = 0
  for (const name of FILES) {
    const source = join(from, name)
    const target = join(SWAGGER_UI_DIR, name)
    if (existsSync(target) && readFileSync(source).equals(readFileSync(target))) continue
    const aside = `${target}.${process.pid}.tmp`
    copyFileSync(source, aside)
    renameSync(aside, target)
    copied++
  }
  if (copied > 0) console.log(`copied ${copied} Swagger UI file${copied === 1 ? '' : 's'} to public/swagger-ui/`)
}
