// The playground (public/playground/) driven in Chromium by the e2e tests: a
// page that records what went wrong and which requests it made, and waits
// that say what the element showed instead when they fail.
import type { Browser, BrowserContext, Page } from 'playwright-core'

/** The page's document, as the functions run in the browser use it (the tests' types have no DOM). */
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null
  querySelectorAll(selector: string): { length: number }
}

export interface PlaygroundPage {
  context: BrowserContext
  page: Page
  /** Page errors, console errors, 404s, 5xx and failed requests. */
  problems: string[]
  /** `METHOD url` of each request the page made. */
  requests: string[]
}

/** How the page is seen: its viewport and the system's color scheme. */
export interface Look {
  viewport?: { width: number; height: number }
  colorScheme?: 'light' | 'dark'
}

/** A page with its own session storage, recording what went wrong and which requests it made. */
export async function newPage(browser: Browser, look: Look = {}): Promise<PlaygroundPage> {
  const context = await browser.newContext({
    viewport: look.viewport ?? { width: 1400, height: 900 },
    colorScheme: look.colorScheme ?? 'light',
  })
  // Below the test's own timeout, so that a wait that fails says what it waited for.
  context.setDefaultTimeout(15_000)
  const page = await context.newPage()
  const problems: string[] = []
  const requests: string[] = []
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  // Chromium logs every 4xx as a console error: the answers themselves are checked by the tests, the 400s are expected.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      problems.push(`console: ${message.text()}`)
  })
  page.on('response', (response) => {
    if (response.status() === 404 || response.status() >= 500) problems.push(`${response.status()} ${response.url()}`)
  })
  page.on('requestfailed', (request) => {
    // A render the page cancelled for a newer one is not a problem.
    if (request.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`failed: ${request.url()}`)
  })
  page.on('request', (request) => requests.push(`${request.method()} ${request.url()}`))
  return { context, page, problems, requests }
}

/** The requests of `requests` (as newPage records them) to another origin than `origin`. */
export function otherOrigins(requests: string[], origin: string): string[] {
  return requests.filter((r) => {
    const url = r.slice(r.indexOf(' ') + 1)
    return !url.startsWith('data:') && new URL(url).origin !== origin
  })
}

/** Resolves once the text of `[data-testid=testid]` includes each of `parts`. */
export async function textOf(page: Page, testid: string, parts: string[]): Promise<string> {
  const handle = await shown(
    page,
    testid,
    page.waitForFunction(
      ([id, wanted]) => {
        const text = document.querySelector(`[data-testid="${id}"]`)?.textContent ?? ''
        return wanted.every((part) => text.includes(part)) ? text : false
      },
      [testid, parts] as const,
    ),
  )
  return (await handle.jsonValue()) as string
}

/** `waiting`, or its failure with what the element shows instead. */
export async function shown<T>(page: Page, testid: string, waiting: Promise<T>): Promise<T> {
  try {
    return await waiting
  } catch (error) {
    const text = await page
      .getByTestId(testid)
      .textContent({ timeout: 1000 })
      .catch(() => '(absent)')
    throw new Error(`${(error as Error).message}\n[data-testid=${testid}] shows: ${JSON.stringify(text)}`)
  }
}
