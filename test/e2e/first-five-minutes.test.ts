// A newcomer's first five minutes against `npm run dev` (no Redis, no
// configuration): every curl in the repository's Markdown works as pasted,
// and / leads to a /docs page that renders in a real browser (Debian's
// chromium, driven by playwright-core) without loading anything from another
// origin. The blocks written for the local Redis (fenced ```sh dev:redis),
// their curls and CLI commands, run in order against `npm run dev:redis`.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

const ROOT = join(import.meta.dirname, '../..')
/** Folders that hold no documentation of ours. */
const NOT_DOCS = new Set(['node_modules', 'dist'])

/** The command a block's examples run against: `npm run dev`, or `npm run dev:redis` for a block fenced ```sh dev:redis. */
type Target = 'dev' | 'dev:redis'

interface CurlExample {
  /** Where it is written: `README.md:139`. */
  place: string
  target: Target
  /** The command as written, `\` continuations joined. */
  command: string
  /** The `# ...` line right below it: the answer it shows, `...` standing for anything. */
  shown: string | undefined
}

/** The Markdown files of the repository, outside hidden and dependency folders. */
async function markdownFiles(dir: string): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || NOT_DOCS.has(entry.name)) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...(await markdownFiles(path)))
    else if (entry.name.endsWith('.md')) files.push(path)
  }
  return files.sort()
}

/**
 * Every line of a fenced code block that starts a `curl` command, in every Markdown file; in a block for the
 * local Redis, every `npx ai-prompt-shell` command too.
 */
async function curlExamples(): Promise<CurlExample[]> {
  const examples: CurlExample[] = []
  for (const file of await markdownFiles(ROOT)) {
    const lines = (await readFile(file, 'utf8')).split('\n')
    let fenced = false
    let target: Target = 'dev'
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string
      const fence = /^\s*```(.*)$/.exec(line)
      if (fence) {
        fenced = !fenced
        target = fenced && /(^|\s)dev:redis(\s|$)/.test(fence[1] as string) ? 'dev:redis' : 'dev'
        continue
      }
      const runs = /^\s*curl\s/.test(line) || (target === 'dev:redis' && /^\s*npx ai-prompt-shell\s/.test(line))
      if (!fenced || !runs) continue
      const place = `${relative(ROOT, file)}:${i + 1}`
      let command = line.trim()
      while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)} ${lines[++i]?.trim()}`
      const shown = /^\s*# (.*)$/.exec(lines[i + 1] ?? '')?.[1]
      examples.push({ place, target, command, shown })
    }
  }
  return examples
}

/** A `# ...` line as a pattern of the whole answer: `...` (or `…`) stands for anything. */
function shownPattern(shown: string): RegExp {
  const parts = shown.split(/\.\.\.|…/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`)
}

const examples = await curlExamples()
const run = promisify(execFile)

let dev: DevServer
/** A curl config directory: curl reads its .curlrc, so the commands run as written and still tell their status. */
let curlHome: string

/**
 * Runs an example as pasted, its `localhost:8787` the server's: a curl must answer 2xx, a CLI command exit 0; and
 * the answer must be what its `# ...` line shows.
 */
async function runExample(server: DevServer, { command, shown }: CurlExample): Promise<void> {
  const pasted = command.replaceAll(/\b(?:localhost|127\.0\.0\.1):8787\b/g, new URL(server.url).host)
  const { stdout, stderr } = await run('bash', ['-o', 'pipefail', '-c', pasted], {
    cwd: ROOT,
    env: { ...process.env, CURL_HOME: curlHome },
  })
  if (command.startsWith('curl')) {
    const status = Number(/(\d{3})$/.exec(stderr)?.[1])
    expect(status, `${command}\nanswered:\n${stdout}`).toBeGreaterThanOrEqual(200)
    expect(status, `${command}\nanswered:\n${stdout}`).toBeLessThan(300)
  }
  if (shown !== undefined) expect(stdout.trimEnd()).toMatch(shownPattern(shown))
}

beforeAll(async () => {
  curlHome = await mkdtemp(join(tmpdir(), 'aps-curl-'))
  // The status goes to stderr, so stdout stays the answer exactly as a reader sees it.
  await writeFile(join(curlHome, '.curlrc'), 'write-out = "%{stderr}%{http_code}"\n')
  dev = await startDev()
}, 60_000)
afterAll(() => dev?.stop())

describe('the curl examples of the Markdown files', () => {
  it('are found: the README shows a read and a render, with the answers they give', () => {
    const readme = examples.filter((e) => e.place.startsWith('README.md:') && e.target === 'dev')
    expect(readme.map((e) => e.command)).toEqual(
      expect.arrayContaining([expect.stringContaining('/api/environs/vscode'), expect.stringContaining('/render')]),
    )
    expect(readme.filter((e) => e.shown !== undefined).length).toBeGreaterThanOrEqual(2)
  })

  it.each(examples.filter((e) => e.target === 'dev'))('$place: $command', (example) => runExample(dev, example))
})

describe('the examples for the local Redis, in order, against npm run dev:redis', () => {
  const onRedis = examples.filter((e) => e.target === 'dev:redis')
  let redisDev: DevServer
  beforeAll(async () => {
    redisDev = await startDev({}, 'dev:redis')
  }, 90_000)
  afterAll(() => redisDev?.stop())

  it('are found: the README writes a prompt, writes it into a label, promotes it and rolls it back', () => {
    const readme = onRedis.filter((e) => e.place.startsWith('README.md:')).map((e) => e.command)
    expect(readme).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^curl -s -X PUT .*\/api\/prompts\//),
        expect.stringMatching(/^curl .*\?label=/),
        expect.stringMatching(/^curl .*\/promote/),
        expect.stringMatching(/^npx ai-prompt-shell rollback /),
      ]),
    )
  })

  it.each(onRedis)('$place: $command', (example) => runExample(redisDev, example), 30_000)
})

describe('/docs in a browser', () => {
  it('is where / leads, renders every operation, and loads nothing from another origin', async () => {
    const browser = await launchChromium()
    try {
      const context = await browser.newContext()
      const requests: string[] = []
      const failures: string[] = []
      context.on('request', (request) => requests.push(request.url()))
      context.on('response', (response) => {
        if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`)
      })
      context.on('requestfailed', (request) => failures.push(`${request.failure()?.errorText} ${request.url()}`))
      const page = await context.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(error.message))

      await page.goto(`${dev.url}/`)
      expect(page.url()).toBe(`${dev.url}/docs`)
      const render = page.locator('.opblock-summary-path[data-path="/api/prompts/{prompt_id}/render"]')
      await render.waitFor({ state: 'visible' })
      await expect(page.locator('.opblock').count()).resolves.toBeGreaterThanOrEqual(12)
      await page.waitForLoadState('networkidle')

      const origin = new URL(dev.url).origin
      expect(requests.filter((url) => new URL(url).origin !== origin)).toEqual([])
      expect(requests).toEqual(
        expect.arrayContaining([
          `${origin}/swagger-ui/swagger-ui-bundle.js`,
          `${origin}/swagger-ui/swagger-ui.css`,
          `${origin}/openapi.json`,
        ]),
      )
      expect(failures).toEqual([])
      expect(errors).toEqual([])
    } finally {
      await browser.close()
    }
  }, 90_000)

  it('serves the static files from the assets folder, but not its ignore file', async () => {
    expect((await fetch(`${dev.url}/swagger-ui/swagger-ui-bundle.js`)).status).toBe(200)
    expect((await fetch(`${dev.url}/.assetsignore`)).status).toBe(404)
  })
})
