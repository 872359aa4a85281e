// The playground (/playground, public/playground/) in a real browser: Debian's
// chromium, driven by playwright-core, against `npm run dev` on the embedded
// store (examples/). An author picks a prompt, types args and sees the
// rendered text; edits the template and sees the draft rendered, storing
// nothing; breaks it and sees where. A second server with API_TOKEN makes the
// page ask for the token; the first one points at the LLM stand-in for a chat.
// A screenshot of the rendered state is written to .ci/artifacts/playground.png.
import { mkdir } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { newPage as pageOf, shown, textOf } from '../support/playground-page'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'
import { startLlmServer } from '../support/llm-server'
import type { LlmServer } from '../support/llm-server'
import { startToolServer } from '../support/tool-server'
import type { ToolServer } from '../support/tool-server'

/** The page's document, as the functions run in the browser use it (the tests' types have no DOM). */
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null
  querySelectorAll(selector: string): { length: number }
}

const ROOT = join(import.meta.dirname, '../..')
const SCREENSHOT = join(ROOT, '.ci/artifacts/playground.png')
const TOKEN = 'playground-test-token'
const PROMPT = 'evaluator.quick_review'
const CODE = 'fmt.Println("hi")'
/** What examples/ make of quick_review with CODE (the environs vscode.programming_language and .frameworks). */
/** How long the tool server takes to answer a REST tool (TOOLS_BASE_URL goes through its /delay/). */
const TOOL_DELAY_MS = 40
const RENDERED = `Review this go code (frameworks: gin, gorm, gin-swagger) in one paragraph:\n${CODE}`

let llm: LlmServer
let tools: ToolServer
/** No token; tools on the tool server, chat through the LLM stand-in. */
let open: DevServer
/** API_TOKEN set; no LLM. */
let guarded: DevServer
let browser: Browser

beforeAll(async () => {
  ;[llm, tools] = await Promise.all([startLlmServer(), startToolServer()])
  // One after the other: two wrangler devs starting at once can pick the same inspector port.
  open = await startDev({
    LLM_BASE_URL: llm.url,
    LLM_DEFAULT_MODEL: 'ok',
    TOOLS_BASE_URL: `${tools.url}/delay/${TOOL_DELAY_MS}`,
  })
  guarded = await startDev({ API_TOKEN: TOKEN })
  browser = await launchChromium()
}, 90_000)
afterAll(async () => {
  await browser?.close()
  await Promise.all([open?.stop(), guarded?.stop(), llm?.stop(), tools?.stop()])
})

const newPage = () => pageOf(browser)

/** Resolves once the rendered text shown is exactly `expected`. */
async function renderedText(page: Page, expected: string): Promise<void> {
  await shown(
    page,
    'render-output',
    page.waitForFunction(
      (wanted) =>
        document.querySelector('[data-testid="render-output"] pre')?.textContent === wanted &&
        !document.querySelector('[data-testid="render-output"] .error'),
      expected,
    ),
  )
}

describe('the playground', () => {
  let page: Page
  let context: BrowserContext
  let problems: string[]
  let requests: string[]

  beforeAll(async () => {
    ;({ page, context, problems, requests } = await newPage())
  })
  afterAll(() => context?.close())

  it('is served at /playground from the static assets, and lists the prompts', async () => {
    const response = await page.goto(`${open.url}/playground`)
    expect(response?.status()).toBe(200)
    // Nothing but its own origin, and no inline script: a violation would be a console error below.
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'; script-src 'self'")
    expect(page.url()).toBe(`${open.url}/playground`)
    const items = page.getByTestId('prompt-item')
    await items.first().waitFor()
    expect(await items.evaluateAll((all) => all.map((item) => item.getAttribute('data-id')))).toEqual([
      'evaluator.evaluate_quality',
      'evaluator.quick_review',
      'evaluator.review_symbol',
      'tickets.triage',
    ])
    // The text filter narrows the list.
    await page.getByPlaceholder('Filter prompts').fill('one-paragraph')
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="prompt-item"]').length === 1)
    expect(await items.getAttribute('data-id')).toBe(PROMPT)
    await page.getByPlaceholder('Filter prompts').fill('')
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="prompt-item"]').length === 4)
  })

  it('renders the selected prompt with the args typed, with what it reads and how long it took', async () => {
    await page.locator(`[data-testid="prompt-item"][data-id="${PROMPT}"]`).click()
    // Selecting fills the editors (the args with the parameters' defaults): type after that.
    await page.locator('#prompt-id', { hasText: PROMPT }).waitFor()
    expect(await page.getByTestId('template-editor').inputValue()).toContain('{{.args.code}}')
    await page.getByTestId('args-editor').fill(JSON.stringify({ code: CODE }))
    await renderedText(page, RENDERED)
    // The form follows the JSON; the stored prompt was rendered with ?explain=true.
    expect(await page.locator('#param-code').inputValue()).toBe(CODE)
    expect(requests).toContain(`POST ${open.url}/api/prompts/${PROMPT}/render?explain=true`)
    expect(await page.locator('#reads').textContent()).toContain('vscode')
    expect(await page.locator('#arg-reads').textContent()).toContain('args.code')
    expect(await page.locator('#tools').textContent()).toBe('none')
    expect(await page.getByTestId('timing').textContent()).toMatch(/^total \d/)
    expect(await page.getByTestId('warnings').textContent()).toBe('none')

    // And the JSON follows the form.
    await page.locator('#param-code').fill('x := 1')
    await renderedText(page, RENDERED.replace(CODE, 'x := 1'))
    expect(JSON.parse(await page.getByTestId('args-editor').inputValue())).toEqual({ code: 'x := 1' })
    await page.locator('#param-code').fill(CODE)
    await renderedText(page, RENDERED)
    expect(problems).toEqual([])
  })

  it('renders an edited template as a draft through POST /api/render, and the stored one again after a reset', async () => {
    await page.getByTestId('template-editor').fill('Draft: {{.args.code}} in {{.vscode.programming_language}}')
    await renderedText(page, `Draft: ${CODE} in go`)
    expect(requests).toContain(`POST ${open.url}/api/render`)
    expect(await page.locator('#draft-badge').isVisible()).toBe(true)

    await page.getByRole('button', { name: 'Back to the stored template' }).click()
    await renderedText(page, RENDERED)
    expect(await page.locator('#draft-badge').isVisible()).toBe(false)
    expect(problems).toEqual([])
  })

  it("shows the tools a draft calls, the failed call's warning, and a waterfall of the calls", async () => {
    await page
      .getByTestId('template-editor')
      .fill('Refs: {{(codebase_lookup_ref "CreateObject").method}}; [{{translate_zh_en (dict "nope" 1)}}]')
    // translate_zh_en refuses those arguments: it renders as nothing, with a warning.
    await renderedText(page, 'Refs: GET; []')
    await mkdir(dirname(SCREENSHOT), { recursive: true })
    await page.screenshot({ path: SCREENSHOT, fullPage: true })
    console.log(`playground screenshot: ${relative(process.cwd(), SCREENSHOT)}`)

    expect(await page.getByTestId('warnings').textContent()).toMatch(/^TOOL_FAILED .*translate_zh_en/)
    expect((await page.locator('#tools code').allTextContents()).sort()).toEqual([
      'codebase_lookup_ref',
      'translate_zh_en',
    ])
    const calls = await page
      .getByTestId('timing')
      .locator('.call')
      .evaluateAll((rows) =>
        rows.map((row) => ({
          tool: row.querySelector('.tool')?.textContent,
          outcome: row.className,
          took: row.querySelector('.took')?.textContent,
          bar: row.querySelector('.bar')?.getAttribute('style'),
          text: row.textContent,
        })),
      )
    expect(calls.map((c) => c.tool).sort()).toEqual(['codebase_lookup_ref', 'translate_zh_en'])
    const lookup = calls.find((c) => c.tool === 'codebase_lookup_ref')
    // The tool server answered after TOOL_DELAY_MS: the bar is that long.
    expect(lookup?.outcome).toBe('call ok')
    expect(Number(/^([\d.]+) ms$/.exec(lookup?.took ?? '')?.[1])).toBeGreaterThanOrEqual(TOOL_DELAY_MS)
    // Readable as text: the row says the tool, the outcome, when it started and how long it took.
    expect(lookup?.text).toMatch(/^codebase_lookup_refokat [\d.]+ ms[\d.]+ ms$/)
    expect(lookup?.bar).toMatch(/width: max\(2px, [1-9]/)
    expect(calls.find((c) => c.tool === 'translate_zh_en')?.outcome).toMatch(/^call (failed|refused)$/)
    expect(problems).toEqual([])
  })

  it("shows a failing template's error with its line and column", async () => {
    await page.getByTestId('template-editor').fill('line one\n{{.x')
    const text = await textOf(page, 'render-output', ['TEMPLATE_SYNTAX', 'line 2, column 4'])
    expect(text).toContain('unclosed action')
    // The button renders at once too: the same error.
    await page.getByTestId('render-button').click()
    await textOf(page, 'render-output', ['TEMPLATE_SYNTAX', 'line 2, column 4'])
    expect(problems).toEqual([])
  })

  it('streams a chat with the stored prompt into the chat panel', async () => {
    await page.getByRole('button', { name: 'Back to the stored template' }).click()
    await renderedText(page, RENDERED)
    expect(await page.getByTestId('chat-sends').textContent()).toBe('sends the stored prompt')
    await page.getByTestId('chat-button').click()
    // The stand-in echoes the last message, word by word.
    await textOf(page, 'chat-output', [`echo: ${RENDERED}`])
    const answer = page.locator('[data-testid="chat-output"] .turn[data-state=done] .chat-text')
    await answer.waitFor()
    expect(await answer.textContent()).toBe(`echo: ${RENDERED}`)
    // Each delta was appended as it came: one text node each.
    expect(await answer.evaluate((el) => el.childNodes.length)).toBeGreaterThan(1)
    expect(requests).toContain(`POST ${open.url}/api/prompts/${PROMPT}/chat`)
    expect(problems).toEqual([])
  })
})

describe('the playground with a page size', () => {
  it('follows next_cursor until the last page of prompts, and lists them all', async () => {
    const { context, page, problems, requests } = await newPage()
    try {
      await page.goto(`${open.url}/playground?limit=1`)
      await textOf(page, 'prompt-list', [PROMPT])
      const items = page.getByTestId('prompt-item')
      expect(await items.evaluateAll((all) => all.map((item) => item.getAttribute('data-id')))).toEqual([
        'evaluator.evaluate_quality',
        'evaluator.quick_review',
        'evaluator.review_symbol',
        'tickets.triage',
      ])
      const lists = requests
        .filter((r) => new URL(r.split(' ')[1] as string).pathname === '/api/prompts')
        .map((r) => new URL(r.split(' ')[1] as string).searchParams)
      // One page per prompt, each after the first with the cursor the one before answered.
      expect(lists.map((q) => q.get('limit'))).toEqual(['1', '1', '1', '1'])
      expect(lists.map((q) => q.has('cursor'))).toEqual([false, true, true, true])
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe('the playground of a label', () => {
  it('reads and renders as /playground?label= names', async () => {
    const { context, page, problems, requests } = await newPage()
    try {
      await page.goto(`${open.url}/playground?label=feat-x`)
      await textOf(page, 'prompt-list', [PROMPT])
      expect(await page.locator('#service').textContent()).toContain('label: feat-x')
      await page.locator(`[data-testid="prompt-item"][data-id="${PROMPT}"]`).click()
      await page.getByTestId('args-editor').fill(JSON.stringify({ code: CODE }))
      // No record of the label's own: it sees the base's.
      await renderedText(page, RENDERED)
      const api = requests.filter((r) => r.includes('/api/'))
      expect(api.length).toBeGreaterThan(0)
      expect(api.filter((r) => new URL(r.split(' ')[1] as string).searchParams.get('label') !== 'feat-x')).toEqual([])
      expect(requests).toContain(`POST ${open.url}/api/prompts/${PROMPT}/render?explain=true&label=feat-x`)
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe('the playground with API_TOKEN set', () => {
  it('asks for the token once, keeps it for the tab, and then lists the prompts', async () => {
    const { context, page, problems } = await newPage()
    try {
      const authorizations: (string | undefined)[] = []
      const refused: string[] = []
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/api/')) authorizations.push(request.headers().authorization)
      })
      page.on('response', (response) => {
        if (response.status() === 401) refused.push(response.url())
      })
      await page.goto(`${guarded.url}/playground`)
      await page.getByTestId('token-form').waitFor({ state: 'visible' })
      expect(await page.getByTestId('prompt-item').count()).toBe(0)
      // /health is public: with no LLM configured, the chat panel says so.
      await textOf(page, 'chat', ['No LLM is configured'])
      expect(await page.getByTestId('chat-button').isHidden()).toBe(true)

      await page.getByTestId('token-input').fill(TOKEN)
      await page.getByRole('button', { name: 'Use token' }).click()
      await page.locator(`[data-testid="prompt-item"][data-id="${PROMPT}"]`).waitFor()
      expect(await page.getByTestId('token-form').isHidden()).toBe(true)
      expect(refused).toEqual([`${guarded.url}/api/prompts`])
      expect(authorizations.at(-1)).toBe(`Bearer ${TOKEN}`)

      // Kept in the tab's session storage: a reload asks nothing, and renders work.
      await page.reload()
      await page.locator(`[data-testid="prompt-item"][data-id="${PROMPT}"]`).click()
      await page.getByTestId('args-editor').fill(JSON.stringify({ code: CODE }))
      await renderedText(page, RENDERED)
      expect(await page.getByTestId('token-form').isHidden()).toBe(true)
      expect(refused).toHaveLength(1)
      expect(await page.evaluate("sessionStorage.getItem('ai-prompt-shell.api-token')")).toBe(TOKEN)
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})
