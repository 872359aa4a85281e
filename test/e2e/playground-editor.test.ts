// The playground's template editor in Chromium, against `npm run dev` (the
// embedded store, examples/): a text prompt is highlighted (actions,
// variables, comments) under the textarea one types in; the bracket pair at
// the caret is marked; a template that does not parse has its line marked;
// a messages prompt is edited as role + content blocks and the draft renders
// the edited messages, in the order and with the roles the blocks say.
import { mkdir } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { newPage, shown, textOf } from '../support/playground-page'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

/** The editor with a marked error line and a bracket pair, for a reviewer's eyes (the glyphs of the view and the textarea coincide). */
const SCREENSHOT = join(import.meta.dirname, '../../.ci/artifacts/playground-editor.png')

/** The page's document, as the functions run in the browser use it (the tests' types have no DOM). */
declare const document: {
  querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>
  activeElement: { getAttribute(name: string): string | null } | null
}

let dev: DevServer
let browser: Browser
let page: Page
let context: BrowserContext
let problems: string[]
let requests: string[]

beforeAll(async () => {
  dev = await startDev({})
  browser = await launchChromium()
  ;({ page, context, problems, requests } = await newPage(browser))
}, 90_000)
afterAll(async () => {
  await context?.close()
  await browser?.close()
  await dev?.stop()
})

/** The texts of the spans `selector` finds in the code view of `area` (a `.code-area` locator). */
const spans = (page: Page, selector: string) => page.locator(`#template-host .code-view ${selector}`).allTextContents()

/** Resolves once the rendered messages shown are `expected`, as `role: content`. */
async function renderedMessages(page: Page, expected: string[]): Promise<void> {
  await shown(
    page,
    'render-output',
    page.waitForFunction((wanted) => {
      const shown = Array.from(document.querySelectorAll('[data-testid="render-output"] .message')).map(
        (m) => m.textContent,
      )
      return JSON.stringify(shown) === JSON.stringify(wanted)
    }, expected),
  )
}

async function select(page: Page, id: string): Promise<void> {
  await page.locator(`[data-testid="prompt-item"][data-id="${id}"]`).click()
  await page.locator('#prompt-id', { hasText: id }).waitFor()
}

describe('the template editor', () => {
  it('highlights the stored template and an edited one: actions, keywords, variables, fields, comments', async () => {
    await page.goto(`${dev.url}/playground`)
    await select(page, 'evaluator.quick_review')
    expect(await page.getByTestId('template-editor').inputValue()).toContain('{{range $i, $f := .vscode.frameworks}}')
    expect(await spans(page, '.t-keyword')).toEqual(['range', 'if', 'end', 'end'])
    expect(await spans(page, '.t-variable')).toEqual(['$i', '$f', '$i', '$f'])
    expect(await spans(page, '.t-field')).toEqual([
      '.vscode',
      '.programming_language',
      '.vscode',
      '.frameworks',
      '.args',
      '.code',
    ])
    // What the view shows is the text typed, character for character.
    const text = 'Hi {{/* who */}}{{with $n := .args.code}}{{printf "%s!" $n}}{{end}}'
    await page.getByTestId('template-editor').fill(text)
    await page.waitForFunction(
      (wanted) => document.querySelectorAll('#template-host .code-view')[0]?.textContent === wanted,
      text,
    )
    expect(await spans(page, '.t-comment')).toEqual(['{{/* who */}}'])
    expect(await spans(page, '.t-keyword')).toEqual(['with', 'end'])
    expect(await spans(page, '.t-function')).toEqual(['printf'])
    expect(await spans(page, '.t-string')).toEqual(['"%s!"'])
    expect(await spans(page, '.t-delim')).toEqual(['{{', '}}', '{{', '}}', '{{', '}}'])
    expect(problems).toEqual([])
  })

  it('marks the bracket pair at the caret', async () => {
    const editor = page.getByTestId('template-editor')
    await editor.fill('ab {{len (print .args.code)}} c')
    await editor.press('Control+Home')
    for (let i = 0; i < 3; i++) await editor.press('ArrowRight')
    // The caret before `{{`: it and its `}}`.
    await page.locator('#template-host .match').nth(1).waitFor()
    expect(await spans(page, '.match')).toEqual(['{{', '}}'])
    for (let i = 0; i < 6; i++) await editor.press('ArrowRight')
    // Just after `(`: it and its `)`.
    await page.waitForFunction(() => document.querySelectorAll('#template-host .match')[0]?.textContent === '(')
    expect(await spans(page, '.match')).toEqual(['(', ')'])
    // Just after the action's end with no `{{` left: nothing of the action is marked.
    await editor.press('End')
    await page.waitForFunction(() => document.querySelectorAll('#template-host .match').length === 0)
    expect(await spans(page, '.unmatched')).toEqual([])
  })

  it('marks the line of a template that does not parse, and unmarks it once it does', async () => {
    const editor = page.getByTestId('template-editor')
    await page.getByTestId('args-editor').fill(JSON.stringify({ code: 'x := 1' }))
    await editor.fill('line one\nline two {{end}}\nline three {{len (print "a")}}')
    await textOf(page, 'render-output', ['TEMPLATE_SYNTAX'])
    await page.locator('#template-host .error-line').waitFor()
    const lines = await page
      .locator('#template-host .code-view .line')
      .evaluateAll((all) => all.map((line) => `${line.className}|${line.textContent}`))
    expect(lines).toEqual(['line|line one', 'line error-line|line two {{end}}', 'line|line three {{len (print "a")}}'])
    expect(await editor.getAttribute('aria-invalid')).toBe('true')
    await editor.press('Control+End')
    await mkdir(dirname(SCREENSHOT), { recursive: true })
    await page.locator('#template-host').screenshot({ path: SCREENSHOT })

    // An edit builds again only the lines that changed: the first line's element stays.
    await page
      .locator('#template-host .code-view .line')
      .first()
      .evaluate((line) => line.setAttribute('data-kept', ''))
    await editor.fill('line one\nline two {{.args.code}}')
    await textOf(page, 'render-output', ['line two x := 1'])
    await page.waitForFunction(() => document.querySelectorAll('#template-host .error-line').length === 0)
    expect(await editor.getAttribute('aria-invalid')).toBeNull()
    expect(await page.locator('#template-host .line[data-kept]').allTextContents()).toEqual(['line one'])
    expect(problems).toEqual([])
  })
})

describe('a messages prompt', () => {
  it('is edited as role + content blocks, and the draft renders the edited messages', async () => {
    await select(page, 'evaluator.evaluate_quality')
    expect(await page.getByTestId('template-editor').count()).toBe(0)
    const roles = page.getByTestId('message-role')
    const contents = page.getByTestId('message-content')
    expect(await roles.evaluateAll((all) => all.map((r) => (r as unknown as { value: string }).value))).toEqual([
      'system',
      'user',
    ])
    expect(await contents.nth(0).inputValue()).toBe(
      'You are a code review assistant who can evaluate the quality of the project.',
    )
    // The user message's template is highlighted as a text prompt's is.
    expect(await page.locator('#template-host .code-area').nth(1).locator('.t-function').allTextContents()).toEqual([
      'join',
      'default',
      'toJson',
    ])

    // A visible focus ring on the code area whose textarea has the focus.
    await contents.nth(0).focus()
    const ring = await page
      .locator('#template-host .code-area')
      .nth(0)
      .evaluate((el) => {
        const style = (
          globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }
        ).getComputedStyle(el)
        return `${style.outlineStyle} ${style.outlineWidth}`
      })
    expect(ring).toBe('solid 2px')

    await contents.nth(0).fill('You are terse about {{.args.repo | default "it"}}.')
    await contents.nth(1).fill('Review it.')
    await renderedMessages(page, ['systemYou are terse about it.', 'userReview it.'])
    expect(requests).toContain(`POST ${dev.url}/api/render`)
    expect(await page.locator('#draft-badge').isVisible()).toBe(true)

    // Add a message, give it a role, move it first, remove the old first one.
    await page.getByTestId('message-add').click()
    await contents.nth(2).fill('Earlier answer.')
    await roles.nth(2).selectOption('assistant')
    await renderedMessages(page, ['systemYou are terse about it.', 'userReview it.', 'assistantEarlier answer.'])
    // The focus stays with the block moved: its button of that move, or at an end its other one.
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))
    await page.getByRole('button', { name: 'Move up message 3' }).click()
    expect(await focused()).toBe('Move up message 2')
    await page.getByRole('button', { name: 'Move up message 2' }).click()
    expect(await focused()).toBe('Move down message 1')
    await page.getByRole('button', { name: 'Remove message 2' }).click()
    expect(await focused()).toBe('Remove message 2')
    await renderedMessages(page, ['assistantEarlier answer.', 'userReview it.'])

    // A message that does not parse: the error names it, and its block marks the line.
    await contents.nth(1).fill('Review\nit {{.x')
    await textOf(page, 'render-output', ['TEMPLATE_SYNTAX', 'messages[1]'])
    const marked = page.locator('#template-host .code-area').nth(1).locator('.error-line')
    await marked.waitFor()
    expect(await marked.allTextContents()).toEqual(['it {{.x'])
    expect(await page.locator('#template-host .error-line').count()).toBe(1)

    // Back to the stored messages: the blocks as stored, nothing marked.
    await page.getByRole('button', { name: 'Back to the stored template' }).click()
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="message-content"]').length === 2)
    expect(await contents.nth(1).inputValue()).toContain('Evaluation dimensions:')
    await page.waitForFunction(() => document.querySelectorAll('#template-host .error-line').length === 0)
    expect(await page.locator('#draft-badge').isVisible()).toBe(false)
    expect(problems).toEqual([])
  })
})
