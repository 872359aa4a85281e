// /docs as a newcomer clicks it, against `npm run dev` (the example
// catalogue, no Redis, no LLM): in Debian's chromium, each operation's "Try
// it out", then "Execute" with what Swagger UI pre-filled, answers as the
// table below says, 2xx but for chat's documented 503 MISCONFIGURED; no
// query parameter is sent (none is pre-filled). And /docs and the playground
// link to each other.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

const ROOT = join(import.meta.dirname, '../..')

/** What executing an operation with its pre-filled values answers on the example catalogue: a status, and an error's code. */
const EXECUTED: Record<string, { status: number; code?: string }> = {
  'GET /health': { status: 200 },
  'GET /api/extensions': { status: 200 },
  'GET /api/extensions/{extension_id}': { status: 200 },
  'GET /api/prompts': { status: 200 },
  'GET /api/prompts/{prompt_id}': { status: 200 },
  'POST /api/prompts/{prompt_id}/render': { status: 200 },
  'POST /api/prompts/{prompt_id}/chat': { status: 503, code: 'MISCONFIGURED' },
  'POST /api/render': { status: 200 },
  'POST /api/prompts/{prompt_id}/test': { status: 200 },
  'POST /api/test': { status: 200 },
  'GET /api/environs': { status: 200 },
  'GET /api/environs/{environ_id}': { status: 200 },
  'GET /api/tools': { status: 200 },
  'GET /api/tools/{tool_id}': { status: 200 },
  'GET /api/extensions/{extension_id}/versions': { status: 200 },
  'GET /api/prompts/{prompt_id}/versions': { status: 200 },
  'GET /api/environs/{environ_id}/versions': { status: 200 },
  'GET /api/tools/{tool_id}/versions': { status: 200 },
  'GET /api/audit': { status: 200 },
  'GET /api/labels': { status: 200 },
  'POST /mcp': { status: 200 },
  'GET /v1/models': { status: 200 },
}

/**
 * The operations not executed here, and why: what the embedded store cannot
 * answer 2xx (their examples are for `npm run dev:redis`; unit-tested in
 * test/unit/openapi-examples.test.ts), and what is no API call.
 */
const NOT_EXECUTED = [
  /^(PUT|DELETE) \/api\/\w+\/\{\w+_id\}$/, // 403 WRITES_DISABLED: writes need ADMIN_TOKEN and Redis
  /^POST \/api\/labels\/\{label\}\/promote(\/requests\/\{n\}\/approve)?$/, // likewise writes
  /^POST \/api\/\w+\/\{\w+_id\}\/rollback$/, // a write, of a version the embedded store does not keep
  /^(PUT|DELETE) \/api\/prompts\/\{prompt_id\}\/rollout$/, // writes
  /^GET \/api\/prompts\/\{prompt_id\}\/rollout$/, // 404 NOT_FOUND: no rollout without versions to roll out
  /^GET \/api\/\w+\/\{\w+_id\}\/versions\/\{version\}$/, // 404 VERSION_NOT_FOUND: the embedded store keeps no versions
  /^(GET|DELETE) \/mcp$/, // always 405, as documented
  /^GET \/(docs|openapi\.json)?$/, // the page and its document
  /^POST \/v1\/(responses|chat\/completions)$/, // 503 MISCONFIGURED without an LLM, as chat's; its body is OpenAI's error shape
]

const document = JSON.parse(readFileSync(join(ROOT, 'public/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>
}
const operations = Object.entries(document.paths).flatMap(([path, byMethod]) =>
  Object.keys(byMethod).map((method) => `${method.toUpperCase()} ${path}`),
)

let dev: DevServer
let browser: Browser

beforeAll(async () => {
  dev = await startDev()
  browser = await launchChromium()
}, 90_000)
afterAll(async () => {
  await browser?.close()
  await dev?.stop()
})

/** /docs, open, with what went wrong on the page recorded. */
async function docsPage(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
  // Below the test's own timeout, so that a wait that fails says what it waited for.
  context.setDefaultTimeout(15_000)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  await page.goto(`${dev.url}/docs`)
  await page.locator('.opblock').first().waitFor()
  return { page, problems }
}

/** Expands `operation` (`POST /api/render`), clicks "Try it out" then "Execute": the URL requested, the status and the body shown. */
async function execute(page: Page, operation: string) {
  const [method, path] = operation.split(' ') as [string, string]
  const block = page
    .locator(`.opblock.opblock-${method.toLowerCase()}`)
    .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) })
  await block.locator('.opblock-summary').click()
  await block.locator('button.try-out__btn').click()
  await block.locator('button.execute').click()
  const response = block.locator('.live-responses-table tr.response')
  await response.waitFor()
  const shown = {
    url: (await block.locator('.request-url pre').innerText()).trim(),
    status: Number((await response.locator('.response-col_status').innerText()).trim()),
    body: await response.locator('.response-col_description pre').first().innerText(),
  }
  // Folded again: the page stays as small as it started.
  await block.locator('.opblock-summary').click()
  return shown
}

describe('/docs, "Try it out" then "Execute"', () => {
  it('covers every operation: executed below, or not for a stated reason', () => {
    const left = operations.filter((op) => !(op in EXECUTED) && !NOT_EXECUTED.some((re) => re.test(op)))
    expect(left).toEqual([])
    expect(Object.keys(EXECUTED).filter((op) => !operations.includes(op))).toEqual([])
  })

  // Expanding an operation costs Swagger UI about 3 s of a loaded 2-core machine's CPU (it renders every answer's schema and example).
  it('answers each as documented with the pre-filled values: 2xx, chat 503 MISCONFIGURED without an LLM', async () => {
    const { page, problems } = await docsPage()
    const answered: Record<string, { status: number; code?: string }> = {}
    const bodies: Record<string, Record<string, unknown>> = {}
    for (const operation of Object.keys(EXECUTED)) {
      const { url, status, body } = await execute(page, operation)
      // Nothing pre-filled a query parameter (a label or a version the examples lack).
      expect(new URL(url).search, operation).toBe('')
      bodies[operation] = JSON.parse(body) as Record<string, unknown>
      answered[operation] = status < 300 ? { status } : { status, code: bodies[operation].code as string }
    }
    expect(answered).toEqual(EXECUTED)
    // The example prompt, rendered with the example args (its exact words are examples/' to change).
    const rendered = bodies['POST /api/prompts/{prompt_id}/render']?.rendered_prompt
    expect(rendered).toContain('func main() {}')
    expect(rendered).not.toMatch(/<no value>|map\[/)
    expect(problems).toEqual([])
  }, 240_000)
})

describe('/docs and the playground', () => {
  it('link to each other', async () => {
    const { page, problems } = await docsPage()
    // Swagger UI opens the description's links in a tab of their own.
    const [playground] = await Promise.all([
      page.waitForEvent('popup'),
      page.locator('.info a[href="/playground"]').click(),
    ])
    await playground.waitForURL(`${dev.url}/playground`)
    await playground.locator('header a[href="/docs"]').click()
    await playground.waitForURL(`${dev.url}/docs`)
    await playground.locator('.opblock').first().waitFor()
    expect(problems).toEqual([])
  }, 60_000)
})
