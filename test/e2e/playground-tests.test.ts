// The playground's tests panel in Chromium, against `npm run dev:redis` (a
// real redis-server, writes enabled with the dev admin token): a prompt PUT
// with one passing and one failing case shows one pass and one fail with its
// expected and actual; run again against an edited template (the draft, sent
// with the stored cases) both pass; one case runs alone; the args are saved
// as a new case into a direct prompt's record and into an extension's.
import { mkdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { newPage, textOf } from '../support/playground-page'
import type { PlaygroundPage } from '../support/playground-page'
import { DEV_ADMIN_TOKEN, startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

/** The panel with one pass and one fail, for a reviewer's eyes. */
const SCREENSHOT = join(import.meta.dirname, '../../.ci/artifacts/playground-tests.png')
const PROMPT = 'team.greeting'
const GREETING = {
  prompt: 'Hello {{.args.name}}',
  parameters: { name: { type: 'string', default: 'Ada' } },
  tests: [
    { name: 'greets', args: { name: 'Ada' }, assert: [{ type: 'contains', value: 'Hello Ada' }] },
    { name: 'welcomes', args: { name: 'Ada' }, assert: [{ type: 'contains', value: 'welcome' }] },
  ],
}

let dev: DevServer
let browser: Browser

/** A request to the service with the admin token; its status and `data`. */
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; data: unknown }> {
  const { status, body: answer } = await dev.asAdmin<{ data: unknown }>(method, path, body)
  return { status, data: answer.data }
}

beforeAll(async () => {
  dev = await startDev({}, 'dev:redis')
  expect((await call('PUT', `/api/prompts/${PROMPT}`, GREETING)).status).toBe(200)
  browser = await launchChromium()
}, 90_000)
afterAll(async () => {
  await browser?.close()
  await dev?.stop()
})

/** The result and the failures shown for the case `name`. */
async function caseShown(page: Page, name: string): Promise<{ result: string; failures: string[][] }> {
  const item = page.locator(`[data-testid="test-case"][data-name="${name}"]`)
  return {
    result: (await item.getByTestId('test-result').textContent()) ?? '',
    failures: await item
      .getByTestId('test-failure')
      .evaluateAll((rows) =>
        rows.map((row) => [
          row.querySelector('code')?.textContent ?? '',
          row.querySelector('.expected')?.textContent ?? '',
          row.querySelector('.actual')?.textContent ?? '',
        ]),
      ),
  }
}

describe("the playground's tests", () => {
  let shown: PlaygroundPage
  /** The bodies the page sent to POST /api/prompts/{id}/test, in order. */
  const runs: unknown[] = []

  beforeAll(async () => {
    shown = await newPage(browser)
    shown.page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith(`/api/prompts/${PROMPT}/test`))
        runs.push(JSON.parse(request.postData() ?? 'null'))
    })
  })
  afterAll(() => shown?.context.close())

  it("lists the prompt's cases and runs them all on the stored text: one pass, one fail with its expected and actual", async () => {
    const { page, problems } = shown
    await page.goto(`${dev.url}/playground#${PROMPT}`)
    await textOf(page, 'tests', ['greets', 'welcomes'])
    await page.getByTestId('run-tests').click()
    await textOf(page, 'tests-state', ['1 passed, 1 failed, 0 skipped, 0 errors'])
    expect(await page.getByTestId('tests-state').textContent()).toContain('stored template')
    expect(runs).toEqual([{}])
    expect(await caseShown(page, 'greets')).toEqual({ result: 'pass', failures: [] })
    expect(await caseShown(page, 'welcomes')).toEqual({
      result: 'fail',
      failures: [['contains', 'welcome', 'Hello Ada']],
    })
    await mkdir(dirname(SCREENSHOT), { recursive: true })
    await page.screenshot({ path: SCREENSHOT, fullPage: true })
    expect(problems).toEqual([])
  })

  it('runs them against the edited template, sent as the draft with the stored cases, and one case alone', async () => {
    const { page, problems } = shown
    await page.getByTestId('template-editor').fill('Hello {{.args.name}}, welcome')
    await page.getByTestId('run-tests').click()
    await textOf(page, 'tests-state', ['draft template: 2 passed, 0 failed'])
    expect(runs[1]).toEqual({
      draft: { prompt: 'Hello {{.args.name}}, welcome', parameters: expect.anything(), tools: [] },
      tests: GREETING.tests,
    })
    expect((await caseShown(page, 'welcomes')).result).toBe('pass')

    await page.getByRole('button', { name: 'Back to the stored template' }).click()
    await page.locator('[data-testid="test-case"][data-name="welcomes"]').getByRole('button', { name: 'Run' }).click()
    await textOf(page, 'tests-state', ['1 run against the stored template: 0 passed, 1 failed'])
    expect(runs[2]).toEqual({ names: ['welcomes'] })
    // The other case keeps its last result.
    expect(await caseShown(page, 'greets')).toEqual({ result: 'pass', failures: [] })
    expect((await caseShown(page, 'welcomes')).result).toBe('fail')
    expect(problems).toEqual([])
  })

  it("saves the args as a case into the prompt's record with the admin token, the template as stored", async () => {
    const { page, problems } = shown
    await page.getByTestId('template-editor').fill('Not saved: {{.args.name}}')
    await page.getByTestId('args-editor').fill(JSON.stringify({ name: 'Grace' }))
    await page.getByLabel('Case name').fill('grace')
    await page.getByLabel('Admin token').fill(DEV_ADMIN_TOKEN)
    await page.getByRole('button', { name: 'Save args as a case' }).click()
    // The base is written only once confirmed in the page: asked, nothing is written yet.
    const confirm = page.getByRole('alertdialog', { name: 'Save the case to the base?' })
    await confirm.waitFor()
    expect(((await call('GET', `/api/prompts/${PROMPT}/versions`)).data as unknown[]).length).toBe(1)
    await confirm.getByRole('button', { name: 'Confirm' }).click()
    await textOf(page, 'save-note', [`Saved "grace" as version 2 of prompts/${PROMPT}`])
    await textOf(page, 'tests', ['grace'])
    const stored = await call('GET', `/api/prompts/${PROMPT}/versions/2`)
    expect((stored.data as { value: unknown }).value).toEqual({
      ...GREETING,
      tests: [...GREETING.tests, { name: 'grace', args: { name: 'Grace' } }],
    })
    // The draft is still being edited.
    expect(await page.getByTestId('template-editor').inputValue()).toBe('Not saved: {{.args.name}}')
    expect(problems).toEqual([])
  })
})

describe("the playground's tests of an extension's prompt", () => {
  it("saves the args as a case into the extension's record; a wrong admin token is refused without asking for the API token", async () => {
    const { context, page, problems } = await newPage(browser)
    try {
      const before = (await call('GET', '/api/extensions/evaluator')).data as ExtensionRecord
      await page.goto(`${dev.url}/playground#evaluator.review_symbol`)
      await page.locator('#prompt-id', { hasText: 'evaluator.review_symbol' }).waitFor()
      await page.getByTestId('args-editor').fill(JSON.stringify({ symbol: 'DeductStock' }))
      await page.getByLabel('Case name').fill('short code')
      await page.getByLabel('Admin token').fill('not-the-token')
      await page.getByRole('button', { name: 'Save args as a case' }).click()
      const confirm = page.getByRole('alertdialog', { name: 'Save the case to the base?' })
      await confirm.getByRole('button', { name: 'Confirm' }).click()
      await textOf(page, 'save-note', ['UNAUTHORIZED'])
      expect(await page.getByTestId('token-form').isHidden()).toBe(true)

      await page.getByLabel('Admin token').fill(DEV_ADMIN_TOKEN)
      await page.getByRole('button', { name: 'Save args as a case' }).click()
      await confirm.getByRole('button', { name: 'Confirm' }).click()
      await textOf(page, 'save-note', ['Saved "short code" as version 2 of extensions/evaluator'])
      await textOf(page, 'tests', ['short code'])
      const after = (await call('GET', '/api/extensions/evaluator')).data as ExtensionRecord
      const prompts = before.contributes.prompts.map((p) =>
        p.name === 'review_symbol'
          ? { ...p, tests: [...(p.tests ?? []), { name: 'short code', args: { symbol: 'DeductStock' } }] }
          : p,
      )
      expect(after).toEqual({ ...before, contributes: { ...before.contributes, prompts } })
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe("the playground's tests of a version", () => {
  const VERSIONED = 'team.tested'
  const cases = [{ name: 'welcomes', args: { name: 'Ada' }, assert: [{ type: 'contains', value: 'welcome' }] }]

  it('runs the version shown, and the stored text when only shared variables are overridden', async () => {
    const parameters = GREETING.parameters
    const first = {
      prompt: 'Hello {{.args.name}}, welcome ({{.vscode.programming_language}})',
      parameters,
      tests: cases,
    }
    const second = { prompt: 'Hello {{.args.name}} ({{.vscode.programming_language}})', parameters, tests: cases }
    expect((await call('PUT', `/api/prompts/${VERSIONED}`, first)).status).toBe(200)
    expect((await call('PUT', `/api/prompts/${VERSIONED}`, second)).status).toBe(200)
    const { context, page, problems, requests } = await newPage(browser)
    try {
      await page.goto(`${dev.url}/playground#${VERSIONED}`)
      await page.getByTestId('version-showing').locator('option[value="1"]').waitFor({ state: 'attached' })
      await page.getByTestId('version-showing').selectOption('1')
      await textOf(page, 'version-shown', ['showing: base · version 1'])
      const row = page.locator('[data-testid="variable"][data-path="vscode.programming_language"]')
      await row.getByTestId('variable-override').fill('"rust"')
      await textOf(page, 'render-output', ['Hello Ada, welcome (rust)'])
      await page.getByTestId('run-tests').click()
      await textOf(page, 'tests-state', ['1 run against the stored template: 1 passed'])
      expect(requests.filter((r) => r.includes('/api/prompts/') && r.includes('/test'))).toEqual([
        `POST ${dev.url}/api/prompts/${VERSIONED}/test?version=1`,
      ])
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe("the playground's tests of a label", () => {
  it("saves a case into the label, leaving the base as it was, and runs the label's cases", async () => {
    const { context, page, problems, requests } = await newPage(browser)
    try {
      const base = await call('GET', `/api/prompts/${PROMPT}`)
      await page.goto(`${dev.url}/playground?label=feat-cases#${PROMPT}`)
      await page.locator('#prompt-id', { hasText: PROMPT }).waitFor()
      await page.getByLabel('Case name').fill('in the label')
      await page.getByLabel('Admin token').fill(DEV_ADMIN_TOKEN)
      await page.getByRole('button', { name: 'Save args as a case' }).click()
      await textOf(page, 'save-note', [`of prompts/${PROMPT} in label feat-cases`])
      await textOf(page, 'tests', ['in the label'])
      expect(requests).toContain(
        `PUT ${dev.url}/api/prompts/${PROMPT}?message=playground%3A+test+case+%22in+the+label%22+added&label=feat-cases`,
      )
      const labelled = (await call('GET', `/api/prompts/${PROMPT}?label=feat-cases`)).data as {
        tests: { name: string }[]
      }
      expect(labelled.tests.at(-1)?.name).toBe('in the label')
      expect(await call('GET', `/api/prompts/${PROMPT}`)).toEqual(base)

      await page.getByTestId('run-tests').click()
      await textOf(page, 'tests-state', [`${labelled.tests.length} run against the stored template`])
      expect(requests).toContain(`POST ${dev.url}/api/prompts/${PROMPT}/test?label=feat-cases`)
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})

interface ExtensionRecord {
  contributes: { prompts: { name: string; tests?: unknown[] }[] }
}
