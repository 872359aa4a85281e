// The playground opens on something that works (issue 35): on `npm run
// dev:redis` (the examples seeded), a prompt with a required parameter opens
// with example args (its defaults, its first test case's args, else marked
// placeholders) and renders without an error; the args typed are kept per
// prompt in the tab; a failed render still shows what the template reads; a
// shared variable overridden for the draft changes the render and nothing
// stored; the keyboard shortcuts work; nothing is asked of another origin.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { newPage, otherOrigins, shown, textOf } from '../support/playground-page'
import type { PlaygroundPage } from '../support/playground-page'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

/** The page's document, as the functions run in the browser use it (the tests' types have no DOM). */
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null
  activeElement: { id: string } | null
}

/** Required parameters with neither defaults nor test cases: placeholders. */
const PLACEHOLDERS = 'team.placeholders'
const RECORD = {
  prompt: 'Hi {{.args.name}} ×{{.args.count}} in {{.vscode.programming_language}}',
  parameters: {
    type: 'object',
    properties: { name: { type: 'string', maxLength: 40 }, count: { type: 'integer' } },
    required: ['name', 'count'],
  },
}

/** A parameter of a complex type (edited in the args JSON) beside a simple one. */
const COMPLEX = 'team.complex'
const COMPLEX_RECORD = {
  prompt: 'items: {{.args.items | toJson}}',
  parameters: {
    type: 'object',
    properties: { items: { type: 'array' }, limit: { type: 'integer', default: 3 } },
    required: ['items'],
  },
}

let dev: DevServer
let browser: Browser

beforeAll(async () => {
  dev = await startDev({}, 'dev:redis')
  expect((await dev.asAdmin('PUT', `/api/prompts/${PLACEHOLDERS}`, RECORD)).status).toBe(200)
  browser = await launchChromium()
}, 90_000)
afterAll(async () => {
  await browser?.close()
  await dev?.stop()
})

/** Opens `id` from the list and resolves once its render shows `parts` and no error. */
async function opened(page: Page, id: string, parts: string[]): Promise<string> {
  await page.locator(`[data-testid="prompt-item"][data-id="${id}"]`).click()
  await page.locator('#prompt-id', { hasText: id }).waitFor()
  return renderedWithout(page, parts)
}

async function renderedWithout(page: Page, parts: string[]): Promise<string> {
  const text = await textOf(page, 'render-output', parts)
  expect(await page.locator('[data-testid="render-output"] .error').count()).toBe(0)
  return text
}

const argsShown = async (page: Page) => JSON.parse(await page.getByTestId('args-editor').inputValue()) as unknown

describe('the playground opens on something that works', () => {
  let shownPage: PlaygroundPage
  let page: Page

  beforeAll(async () => {
    shownPage = await newPage(browser)
    page = shownPage.page
    await page.goto(`${dev.url}/playground`)
    await page.getByTestId('prompt-item').first().waitFor()
  })
  afterAll(() => shownPage.context.close())

  it("renders the example catalogue's prompts with required parameters with their first test case's args", async () => {
    await opened(page, 'evaluator.quick_review', ['Review this go code', 'func main() {}'])
    expect(await argsShown(page)).toEqual({ code: 'func main() {}' })
    expect(await page.locator('#args-note').textContent()).toContain('in the project')
    await opened(page, 'evaluator.review_symbol', ['symbol CreateOrder'])
    expect(await argsShown(page)).toEqual({ symbol: 'CreateOrder' })
    expect(shownPage.problems).toEqual([])
  })

  it('fills the required parameters that have no value with placeholders, marked as examples', async () => {
    await opened(page, PLACEHOLDERS, ['Hi example name ×1 in go'])
    expect(await argsShown(page)).toEqual({ name: 'example name', count: 1 })
    const badges = () => page.locator('.field .badge:visible', { hasText: 'example' }).count()
    expect(await badges()).toBe(2)
    // A value typed is no longer an example.
    await page.locator('#param-name').fill('Ada')
    await renderedWithout(page, ['Hi Ada ×1 in go'])
    expect(await badges()).toBe(1)
    expect(shownPage.problems).toEqual([])
  })

  it('keeps the args typed for each prompt in the tab', async () => {
    await page.getByTestId('args-editor').fill(JSON.stringify({ name: 'Grace', count: 3 }))
    await renderedWithout(page, ['Hi Grace ×3 in go'])
    await opened(page, 'evaluator.quick_review', ['func main() {}'])
    await opened(page, PLACEHOLDERS, ['Hi Grace ×3 in go'])
    expect(await argsShown(page)).toEqual({ name: 'Grace', count: 3 })
    // And across a reload of the tab.
    await page.reload()
    await page.getByTestId('prompt-item').first().waitFor()
    await opened(page, PLACEHOLDERS, ['Hi Grace ×3 in go'])
    // The same args in another label: they are the prompt's, not a label's.
    await page.goto(`${dev.url}/playground?label=feat-args#${PLACEHOLDERS}`)
    await renderedWithout(page, ['Hi Grace ×3 in go'])
    expect(await argsShown(page)).toEqual({ name: 'Grace', count: 3 })
    await page.goto(`${dev.url}/playground#${PLACEHOLDERS}`)
    await renderedWithout(page, ['Hi Grace ×3 in go'])
    expect(shownPage.problems).toEqual([])
  })

  it('shows what the template reads when the render fails', async () => {
    await page.getByTestId('args-editor').fill(JSON.stringify({ name: 'Grace' }))
    await textOf(page, 'render-output', ['INVALID_ARGS', 'count'])
    expect(await page.locator('#arg-reads').textContent()).toContain('args.count')
    expect(await page.locator('#reads').textContent()).toContain('vscode.programming_language')
    await page.getByTestId('args-editor').fill(JSON.stringify({ name: 'Grace', count: 3 }))
    await renderedWithout(page, ['Hi Grace ×3 in go'])
  })

  it("shows a shared variable's value and age, and overrides it for the draft only", async () => {
    const environ = `/api/environs/vscode.programming_language`
    const before = await dev.asAdmin('GET', environ)
    expect(before.status).toBe(200)
    const row = page.locator('[data-testid="variable"][data-path="vscode.programming_language"]')
    await shown(page, 'variables', row.getByTestId('variable-value').filter({ hasText: '"go"' }).waitFor())
    expect(await row.locator('.age').textContent()).toMatch(/^read /)

    await row.getByTestId('variable-override').fill('"rust"')
    await renderedWithout(page, ['Hi Grace ×3 in rust'])
    const draft = shownPage.requests.filter((r) => r === `POST ${dev.url}/api/render`)
    expect(draft.length).toBeGreaterThan(0)
    await row.getByTestId('variable-value').filter({ hasText: '"rust"' }).waitFor()
    expect(await row.locator('.badge').textContent()).toBe('overridden')
    // Nothing written: the service's shared variables answer as before.
    expect(await dev.asAdmin('GET', environ)).toEqual(before)

    await page.getByTestId('clear-overrides').click()
    await renderedWithout(page, ['Hi Grace ×3 in go'])
    expect(shownPage.problems).toEqual([])
  })

  it("refuses an override of a path through __proto__: nothing is set on the page's objects", async () => {
    await page.getByTestId('template-editor').fill('Hi {{.__proto__.polluted}}')
    const row = page.locator('[data-testid="variable"][data-path="__proto__.polluted"]')
    await shown(page, 'variables', row.waitFor())
    await row.getByTestId('variable-override').fill('"yes"')
    await textOf(page, 'variables', ['__proto__.polluted cannot be overridden'])
    expect(await page.evaluate(() => (({}) as Record<string, unknown>).polluted)).toBeUndefined()
    expect(await row.getByTestId('variable-override').getAttribute('aria-invalid')).toBe('true')
    await page.getByRole('button', { name: 'Back to the stored template' }).click()
    await renderedWithout(page, ['Hi Grace ×3 in go'])
    expect(shownPage.problems).toEqual([])
  })

  it('names each control: a parameter edited in the args JSON has no label for a paragraph; the states are live', async () => {
    expect((await dev.asAdmin('PUT', `/api/prompts/${COMPLEX}`, COMPLEX_RECORD)).status).toBe(200)
    await page.reload()
    await page.getByTestId('prompt-item').first().waitFor()
    await opened(page, COMPLEX, ['items: []'])
    expect(await page.locator('#params-form label[for]').count()).toBe(1)
    expect(await page.locator('#param-limit').count()).toBe(1)
    expect(await page.locator('#params-form .field-name').allTextContents()).toEqual(['items (required) example'])
    expect(await page.locator('#render-state').getAttribute('aria-live')).toBe('polite')
    expect(await page.getByTestId('tests-state').getAttribute('aria-live')).toBe('polite')
    expect(shownPage.problems).toEqual([])
  })

  it('answers the keyboard: Ctrl+K to the filter, Enter opens, Ctrl+Enter renders, ? lists the shortcuts', async () => {
    await page.keyboard.press('Control+k')
    await page.waitForFunction(() => document.activeElement?.id === 'filter')
    await page.keyboard.type('quick_review')
    await page.keyboard.press('Enter')
    await page.locator('#prompt-id', { hasText: 'evaluator.quick_review' }).waitFor()
    await renderedWithout(page, ['func main() {}'])
    const renders = () =>
      shownPage.requests.filter((r) => r.startsWith(`POST ${dev.url}/api/prompts/evaluator.quick_review/render`)).length
    const before = renders()
    await page.getByTestId('args-editor').focus()
    await page.keyboard.press('Control+Enter')
    await page.waitForFunction(() => document.querySelector('#render-state')?.textContent === '')
    expect(renders()).toBe(before + 1)
    await page.locator('#render-button').focus()
    await page.keyboard.press('?')
    await textOf(page, 'shortcuts', ['Ctrl/⌘ + Enter', 'Render now'])
    expect(await page.getByTestId('shortcuts').isVisible()).toBe(true)
    await page.keyboard.press('Escape')
    expect(await page.getByTestId('shortcuts').isVisible()).toBe(false)
    expect(shownPage.problems).toEqual([])
    expect(otherOrigins(shownPage.requests, dev.url)).toEqual([])
  })
})
