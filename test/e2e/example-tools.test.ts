// `npm run dev` as the README says, with nothing configured: it starts the
// example tool server (dev/example-tools/) beside wrangler dev, so the example
// prompts' REST, MCP and gRPC calls answer. In Debian's chromium (driven by
// playwright-core), the playground's first open of a prompt that calls tools
// shows a waterfall of successful calls; and every example prompt renders
// without Go's raw formatting of maps and slices.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

/** The page's document, as the functions run in the browser use it (the tests' types have no DOM). */
declare const document: {
  querySelector(selector: string): { textContent: string | null } | null
}

/** The example prompt that calls every kind of tool. */
const TRIAGE = 'tickets.triage'
/** What it calls, by kind: MCP, REST (twice), gRPC. */
const TRIAGE_TOOLS = ['codebase_lookup_ref', 'greeter_greet', 'tickets_lookup', 'translate_zh_en']
/** The args a prompt without defaults for its required parameters is rendered with. */
const ARGS: Record<string, Record<string, unknown>> = {
  'evaluator.quick_review': { code: 'x := 1' },
  'evaluator.review_symbol': { symbol: 'SaveOrder' },
}
/**
 * How Go's text/template prints a map, a missing value and a slice
 * (`[readability error handling]`: brackets around words with no comma or quote).
 */
const GO_FORMATTING = /map\[|<no value>|\[[^\][",]*\s[^\][",]*\]/

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

/** The example tools' URL, from the line `npm run dev` prints. */
function toolsUrl(): string {
  const url = /example tools .* at (http:\/\/127\.0\.0\.1:\d+)/.exec(dev.output())?.[1]
  if (!url) throw new Error(`npm run dev printed no example tools' URL:\n${dev.output()}`)
  return url
}

async function render(id: string, args: Record<string, unknown>): Promise<{ status: number; body: RenderAnswer }> {
  const res = await fetch(`${dev.url}/api/prompts/${id}/render?explain=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ args }),
  })
  return { status: res.status, body: (await res.json()) as RenderAnswer }
}

interface RenderAnswer {
  rendered_prompt: string | { role: string; content: string }[]
  warnings?: { code: string }[]
  timing: { calls: { tool: string; outcome: string }[] }
}

describe('the playground with the example tools', () => {
  let context: BrowserContext
  let page: Page
  const problems: string[] = []

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } })
    context.setDefaultTimeout(15_000)
    page = await context.newPage()
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`)
    })
  })
  afterAll(() => context?.close())

  /** The rendered text (a messages prompt's every message) once it includes `part`. */
  async function renderedIncluding(part: string): Promise<string> {
    const handle = await page.waitForFunction((wanted) => {
      const text = document.querySelector('[data-testid="render-output"]')?.textContent ?? ''
      return text.includes(wanted) ? text : false
    }, part)
    return (await handle.jsonValue()) as string
  }

  // First: the Worker's first render, and the tools' first calls, as a newcomer's first click makes them.
  it('shows, on first opening the triage prompt, a waterfall of successful REST, MCP and gRPC calls', async () => {
    await page.goto(`${dev.url}/playground`)
    await page.locator(`[data-testid="prompt-item"][data-id="${TRIAGE}"]`).click()
    // Rendered at once with the parameters' defaults: ticket SHOP-101, symbol DeductStock.
    const text = await renderedIncluding('Triage ticket SHOP-101')
    expect(text).toContain('Reported by Li Wei: the stock is not deducted after an order is placed')
    expect(text).toContain('- store/order.go:52: func (s *OrderStore) DeductStock(tx *gorm.DB, items []Item) error {')
    expect(text).toContain('"Hello, Li Wei!"')
    expect(await page.getByTestId('warnings').textContent()).toBe('none')
    const calls = await page
      .getByTestId('timing')
      .locator('.call')
      .evaluateAll((rows) => rows.map((row) => `${row.querySelector('.tool')?.textContent} ${row.className}`))
    expect(calls.sort()).toEqual(TRIAGE_TOOLS.map((tool) => `${tool} call ok`))
    expect(await page.getByTestId('render-output').textContent()).not.toContain('TOOL_FAILED')
    expect(problems).toEqual([])
  })

  it('renders evaluate_quality with its environs as a list and as JSON, not as Go prints them', async () => {
    await page.locator('[data-testid="prompt-item"][data-id="evaluator.evaluate_quality"]').click()
    const text = await renderedIncluding('Evaluation dimensions: readability, error handling, test coverage, security')
    expect(text).toContain(
      '{"files":["main.go","handlers/order.go","store/order.go"],"language":"go","name":"shop-api"}',
    )
    expect(text).not.toMatch(GO_FORMATTING)
    expect(problems).toEqual([])
  })
})

describe('npm run dev with the example tools', () => {
  it('says where the example tools are, and they answer', async () => {
    expect(dev.output().match(/example tools /g)).toHaveLength(1)
    const res = await fetch(`${toolsUrl()}/codebase/refs/SaveOrder?limit=1`)
    expect(await res.json()).toEqual({
      refs: ['store/order.go:19: func (s *OrderStore) SaveOrder(ctx context.Context, o *Order) error {'],
    })
  })

  it('renders the prompt that calls REST, MCP and gRPC tools, every call answered', async () => {
    const { status, body } = await render(TRIAGE, { ticket: 'SHOP-102', symbol: 'ListOrders' })
    expect(status).toBe(200)
    expect(body.warnings).toBeUndefined()
    expect(body.timing.calls.map((c) => `${c.tool} ${c.outcome}`).sort()).toEqual(
      TRIAGE_TOOLS.map((tool) => `${tool} ok`),
    )
    expect(body.rendered_prompt).toBe(
      [
        'Triage ticket SHOP-102 of shop-api, a go service built with gin, gorm, gin-swagger.',
        'Title: Order list is slow for large accounts',
        'Status: in_progress; assignee: Ada; labels: performance',
        'Reported by Zhang Min: listing the orders takes five seconds for a user with many orders.',
        'References of ListOrders:',
        '- handlers/order.go:88: func (h *OrderHandler) ListOrders(c *gin.Context) {',
        '- main.go:42: orders.GET("", h.ListOrders)',
        `Answer with the ticket's priority (P1 to P4), the component at fault, and a reply to the reporter that begins "Hello, Zhang Min!".`,
      ].join('\n'),
    )
  })

  it("renders every example prompt without Go's raw formatting of maps, slices and missing values", async () => {
    const list = (await (await fetch(`${dev.url}/api/prompts`)).json()) as { data: { id: string }[] }
    const ids = list.data.map((p) => p.id)
    expect(ids).toEqual(expect.arrayContaining(['evaluator.evaluate_quality', TRIAGE]))
    for (const id of ids) {
      const { status, body } = await render(id, ARGS[id] ?? {})
      expect(status, id).toBe(200)
      const text = [body.rendered_prompt].flat().map((m) => (typeof m === 'string' ? m : m.content))
      expect(text.join('\n'), id).not.toMatch(GO_FORMATTING)
      expect(body.warnings, id).toBeUndefined()
    }
  })
})

describe('stopping npm run dev', () => {
  it('stops the example tools with wrangler', async () => {
    const tools = toolsUrl()
    await dev.stop()
    await expect(fetch(`${tools}/codebase/refs/Parse`)).rejects.toThrow()
    await expect(fetch(`${dev.url}/health`)).rejects.toThrow()
  })
})
