// The playground's chat panel (public/playground/chat.js) in Chromium, against
// `npm run dev` (the examples) with the LLM stand-in and the tool server: an
// edited draft chatted with a scripted model that calls the prompt's tool
// (the step, the parsed answer, the usage shown); a second turn sending the
// conversation; the model's parameters as the LLM received them; and two
// models side by side.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { startLlmServer } from '../support/llm-server'
import type { LlmRequestRecord, LlmServer, ScriptedAnswer } from '../support/llm-server'
import { newPage, textOf } from '../support/playground-page'
import { startToolServer } from '../support/tool-server'
import type { ToolServer } from '../support/tool-server'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

/** Offers codebase_lookup_ref to the model, and `returns` {score, summary}. */
const PROMPT = 'evaluator.review_symbol'
const SYMBOL = 'CreateOrder'
const DRAFT = 'Draft: rate {{.args.symbol}} in {{.vscode.programming_language}}.'
const RENDERED_DRAFT = `Draft: rate ${SYMBOL} in go.`
const ANSWER = '{"score": 8, "summary": "used with care"}'

let llm: LlmServer
let tools: ToolServer
let dev: DevServer
let browser: Browser

beforeAll(async () => {
  ;[llm, tools] = await Promise.all([startLlmServer(), startToolServer()])
  dev = await startDev({ LLM_BASE_URL: llm.url, LLM_DEFAULT_MODEL: 'ok', TOOLS_BASE_URL: tools.url })
  browser = await launchChromium()
}, 90_000)
afterAll(async () => {
  await browser?.close()
  await Promise.all([dev?.stop(), llm?.stop(), tools?.stop()])
})

async function script(model: string, answers: ScriptedAnswer[]): Promise<void> {
  const res = await fetch(`${llm.origin}/__script?model=${encodeURIComponent(model)}`, {
    method: 'POST',
    body: JSON.stringify({ answers }),
  })
  expect(res.status).toBe(200)
}

async function received(model: string): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${llm.origin}/__requests?model=${encodeURIComponent(model)}`)
  return ((await res.json()) as { requests: LlmRequestRecord[] }).requests.map((r) => r.body)
}

/** The messages of a request the LLM received, as role and text. */
const messagesOf = (body: Record<string, unknown> | undefined) =>
  (body?.messages as { role: string; content: unknown }[]).map(({ role, content }) => ({ role, content }))

/** Opens the prompt with the symbol as its args, and waits for its render. */
async function open(page: Page): Promise<void> {
  await page.goto(`${dev.url}/playground`)
  await page.locator(`[data-testid="prompt-item"][data-id="${PROMPT}"]`).click()
  await page.locator('#prompt-id', { hasText: PROMPT }).waitFor()
  await page.getByTestId('args-editor').fill(JSON.stringify({ symbol: SYMBOL }))
  await textOf(page, 'render-output', [`symbol ${SYMBOL} is used`])
}

/** The `n`th assistant turn (from 1) of a column, once its answer has ended. */
async function answered(page: Page, column: 'chat' | 'compare', n: number) {
  const turn = page
    .getByTestId(`${column}-output`)
    .locator('.turn.assistant')
    .nth(n - 1)
  await turn.locator('xpath=self::*[@data-state="done" or @data-state="failed"]').waitFor()
  expect(await turn.getAttribute('data-state')).toBe('done')
  return turn
}

describe('the chat panel', () => {
  let page: Page
  let context: BrowserContext
  let problems: string[]

  beforeAll(async () => {
    ;({ page, context, problems } = await newPage(browser))
    await open(page)
  })
  afterAll(() => context?.close())

  it('chats with the edited draft: the answer streamed, the tool step, parsed and usage, with the parameters sent', async () => {
    const model = 'scripted-review'
    await script(model, [
      {
        tool_calls: [{ id: 'call-1', name: 'codebase_lookup_ref', arguments: JSON.stringify({ symbol: SYMBOL }) }],
        usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
      },
      { content: ANSWER, usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } },
    ])
    await page.getByTestId('template-editor').fill(DRAFT)
    await textOf(page, 'render-output', [RENDERED_DRAFT])
    // The model inputs suggest the service's models (GET /v1/models): LLM_DEFAULT_MODEL here.
    await page.locator('#chat-models option[value="ok"]').waitFor({ state: 'attached' })
    await page.getByTestId('chat-model').fill(model)
    await page.getByTestId('chat-temperature').fill('0.3')
    await page.getByTestId('chat-max-tokens').fill('200')
    expect(await page.getByTestId('chat-sends').textContent()).toBe('sends the draft')
    const request = page.waitForRequest((r) => r.url() === `${dev.url}/api/prompts/${PROMPT}/chat`)
    await page.getByTestId('chat-button').click()
    const sent = (await request).postDataJSON() as Record<string, unknown>
    expect(sent).toMatchObject({ args: { symbol: SYMBOL }, stream: true, model, temperature: 0.3, max_tokens: 200 })
    // The draft's other fields (its tools among them) are the stored record's, kept by the service.
    expect(sent.draft).toMatchObject({ prompt: DRAFT })
    expect(sent).not.toHaveProperty('messages')

    const turn = await answered(page, 'chat', 1)
    expect(await turn.locator('.chat-text').textContent()).toBe(ANSWER)
    // Its tool step: the tool, the arguments and the tool server's answer (an echo of the call), outcome and time.
    const calls = turn.locator('[data-role=call]')
    expect(await calls.count()).toBe(1)
    expect(await calls.locator('.tool').textContent()).toBe('codebase_lookup_ref')
    expect(JSON.parse((await calls.locator('.call-arguments').textContent()) ?? '')).toEqual({ symbol: SYMBOL })
    expect(await calls.locator('.call-result').textContent()).toContain(`/codebase/refs/${SYMBOL}`)
    expect(await calls.locator('.outcome').textContent()).toBe('ok')
    expect(await calls.locator('.took').textContent()).toMatch(/^\d+ ms$/)
    // Parsed against `returns`, and the usage of both rounds summed.
    expect(await turn.locator('[data-role=parsed]').textContent()).toContain('parsed (valid against returns)')
    expect(JSON.parse((await turn.locator('[data-role=parsed] pre').textContent()) ?? '')).toEqual(JSON.parse(ANSWER))
    expect(await turn.locator('[data-role=usage]').textContent()).toBe(
      'usage: 31 prompt · 14 completion · 45 tokens · 1 tool call',
    )
    expect(await turn.locator('[data-role=latency]').textContent()).toMatch(/^first token \d+ ms · total \d+ ms$/)

    // The LLM received the draft's render, the prompt's tool, and the parameters; then the tool's answer.
    const bodies = await received(model)
    expect(bodies).toHaveLength(2)
    expect(bodies[0]).toMatchObject({ model, temperature: 0.3, max_tokens: 200 })
    expect(messagesOf(bodies[0])).toEqual([{ role: 'user', content: RENDERED_DRAFT }])
    expect((bodies[0]?.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'codebase_lookup_ref',
    ])
    expect(messagesOf(bodies[1]).at(-1)?.role).toBe('tool')
    const stats = await (await fetch(`${tools.url}/__stats`)).json()
    expect(stats).toMatchObject({ calls: 1 })
    expect(problems).toEqual([])
  })

  it('sends the conversation at the next turn, and starts afresh with a new conversation', async () => {
    const model = 'echo-turns'
    await page.getByTestId('chat-model').fill(model)
    await page.getByTestId('chat-temperature').fill('')
    await page.getByTestId('chat-max-tokens').fill('')
    await page.getByTestId('chat-reset').click()
    expect(await page.getByTestId('chat-output').locator('.turn').count()).toBe(0)
    await page.getByTestId('chat-button').click()
    const first = await answered(page, 'chat', 1)
    // The stand-in echoes the last message, word by word: each word appended as it came.
    expect(await first.locator('.chat-text').textContent()).toBe(`echo: ${RENDERED_DRAFT}`)
    expect(await first.locator('.chat-text').evaluate((el) => el.childNodes.length)).toBeGreaterThan(1)

    await page.getByTestId('chat-input').fill('And the second symbol?')
    await page.getByTestId('chat-button').click()
    const second = await answered(page, 'chat', 2)
    expect(await second.locator('.chat-text').textContent()).toBe('echo: And the second symbol?')
    const bodies = await received(model)
    expect(bodies).toHaveLength(2)
    expect(bodies[0]).not.toHaveProperty('temperature')
    expect(messagesOf(bodies[1])).toEqual([
      { role: 'user', content: RENDERED_DRAFT },
      { role: 'assistant', content: `echo: ${RENDERED_DRAFT}` },
      { role: 'user', content: 'And the second symbol?' },
    ])
    // A further turn needs a message.
    await page.getByTestId('chat-button').click()
    await textOf(page, 'chat-problem', ['Type the next message'])
    expect(await received(model)).toHaveLength(2)

    await page.getByTestId('chat-reset').click()
    expect(await page.getByTestId('chat-output').locator('.turn').count()).toBe(0)
    await page.getByTestId('chat-button').click()
    await answered(page, 'chat', 1)
    expect(messagesOf((await received(model))[2])).toEqual([{ role: 'user', content: RENDERED_DRAFT }])
    expect(problems).toEqual([])
  })

  it("shows a refused answer's error in its turn, and keeps that turn out of the conversation", async () => {
    await page.getByTestId('chat-reset').click()
    await page.getByTestId('chat-model').fill('bad-request')
    await page.getByTestId('chat-button').click()
    const turn = page.getByTestId('chat-output').locator('.turn.assistant[data-state=failed]')
    await turn.waitFor()
    expect(await turn.locator('.error').count()).toBe(1)
    expect(await received('bad-request')).toHaveLength(1)
    // Both halves of the failed turn stay in the transcript, marked as not sent, and the end is announced.
    await textOf(page, 'chat-status', ['Turn not sent: the answer failed.'])
    const output = page.getByTestId('chat-output')
    expect(await output.locator('.turn[data-sent=no]').count()).toBe(2)
    expect(await output.locator('.turn.user .not-sent-note').textContent()).toBe(
      'not sent: the answer failed, this turn is not part of the conversation',
    )
    // The next turn is a first turn again: nothing of the failed one is sent.
    await page.getByTestId('chat-model').fill('after-refusal')
    await page.getByTestId('chat-input').fill('Try again')
    await page.getByTestId('chat-button').click()
    const next = await answered(page, 'chat', 2)
    expect(await next.getAttribute('data-sent')).toBeNull()
    expect(messagesOf((await received('after-refusal'))[0])).toEqual([
      { role: 'user', content: RENDERED_DRAFT },
      { role: 'user', content: 'Try again' },
    ])
    await textOf(page, 'chat-status', ['Turn 1: answered.'])
  })

  it('marks a turn stopped by the next send as not sent, leaves the newer text, and counts only answered turns', async () => {
    await page.getByTestId('chat-reset').click()
    await page.getByTestId('chat-model').fill('echo-first')
    await page.getByTestId('chat-button').click()
    await answered(page, 'chat', 1)
    // A second turn to a model that stalls after its first chunk: stopped by the next send.
    await page.getByTestId('chat-model').fill('stream-stall')
    await page.getByTestId('chat-input').fill('Stalled question')
    await page.getByTestId('chat-button').click()
    const output = page.getByTestId('chat-output')
    await output.locator('.turn.assistant').nth(1).locator('.chat-text').waitFor({ state: 'attached' })
    expect(await received('stream-stall')).toHaveLength(1)
    await page.getByTestId('chat-model').fill('echo-after-stop')
    await page.getByTestId('chat-input').fill('Another question')
    await page.getByTestId('chat-button').click()
    // The stopped turn: its answer "stopped", both halves marked, and its text not put back over the newer one.
    await output.locator('.turn.assistant[data-state=stopped][data-sent=no]').waitFor()
    expect(await output.locator('.turn.user[data-sent=no] .chat-text').textContent()).toBe('Stalled question')
    expect(await output.locator('.turn.user[data-sent=no] .not-sent-note').textContent()).toContain(
      'the answer stopped',
    )
    await answered(page, 'chat', 3)
    expect(await page.getByTestId('chat-input').inputValue()).toBe('')
    // Sent without the stopped turn; and counted as the conversation's second turn.
    expect(messagesOf((await received('echo-after-stop'))[0])).toEqual([
      { role: 'user', content: RENDERED_DRAFT },
      { role: 'assistant', content: `echo: ${RENDERED_DRAFT}` },
      { role: 'user', content: 'Another question' },
    ])
    await textOf(page, 'chat-status', ['Turn 2: answered.'])
    expect(problems).toEqual([])
  })

  it('drops a turn from both columns of a compare when one of them fails', async () => {
    await page.getByTestId('chat-model').fill('model-ok')
    await page.getByTestId('chat-compare').check()
    await page.getByTestId('chat-model-b').fill('bad-request')
    await page.getByTestId('chat-input').fill('Compared question')
    await page.getByTestId('chat-button').click()
    await answered(page, 'chat', 1)
    await page.getByTestId('compare-output').locator('.turn.assistant[data-state=failed]').waitFor()
    await textOf(page, 'chat-status', ['Turn not sent'])
    // The first column's answer came, but the turn is out of both conversations: the columns keep the same turns.
    for (const column of ['chat-output', 'compare-output'])
      expect(await page.getByTestId(column).locator('.turn[data-sent=no]').count()).toBe(2)
    expect(await page.getByTestId('chat-input').inputValue()).toBe('Compared question')
    await page.getByTestId('chat-model-b').fill('model-ok-b')
    await page.getByTestId('chat-button').click()
    await Promise.all([answered(page, 'chat', 2), answered(page, 'compare', 2)])
    for (const model of ['model-ok', 'model-ok-b'])
      expect(messagesOf((await received(model)).at(-1))).toEqual([
        { role: 'user', content: RENDERED_DRAFT },
        { role: 'user', content: 'Compared question' },
      ])
    await page.getByTestId('chat-compare').uncheck()
  })

  it('labels every control of the panel, and shows where the keyboard focus is', async () => {
    // Each control's name as a screen reader reads it: its label's text, its aria-label, or a button's text.
    const unnamed = await page
      .getByTestId('chat')
      .locator('input, textarea, select, button')
      .evaluateAll((controls) =>
        controls
          .map((c) => {
            const el = c as unknown as { id: string; labels?: { textContent: string | null }[] | null }
            const names = [
              ...Array.from(el.labels ?? [], (l) => l.textContent ?? ''),
              c.getAttribute('aria-label') ?? '',
              c.tagName === 'BUTTON' ? (c.textContent ?? '') : '',
            ]
            return names.some((n) => n.trim() !== '') ? null : `${c.tagName} #${el.id}`
          })
          .filter((name) => name !== null),
      )
    expect(unnamed).toEqual([])
    expect(await page.getByTestId('chat-status').getAttribute('role')).toBe('status')
    // Tab from the message to the send button: the focused button has an outline.
    await page.getByTestId('chat-input').focus()
    await page.keyboard.press('Tab')
    const focused = await page.evaluate(
      '[document.activeElement.dataset.testid, getComputedStyle(document.activeElement).outlineStyle]',
    )
    expect(focused).toEqual(['chat-button', 'solid'])
  })

  it('compares two models side by side, each sent the same turns', async () => {
    await page.getByTestId('chat-model').fill('model-a')
    await page.getByTestId('chat-compare').check()
    await page.getByTestId('chat-model-b').fill('model-b')
    await page.getByTestId('chat-button').click()
    const [a, b] = await Promise.all([answered(page, 'chat', 1), answered(page, 'compare', 1)])
    expect(await a.locator('.chat-text').textContent()).toBe(`echo: ${RENDERED_DRAFT}`)
    expect(await b.locator('.chat-text').textContent()).toBe(`echo: ${RENDERED_DRAFT}`)
    await page.getByTestId('chat-input').fill('Shorter, please')
    await page.getByTestId('chat-button').click()
    await Promise.all([answered(page, 'chat', 2), answered(page, 'compare', 2)])
    for (const model of ['model-a', 'model-b']) {
      const bodies = await received(model)
      expect(bodies.map((body) => body.model)).toEqual([model, model])
      expect(messagesOf(bodies[1])).toEqual([
        { role: 'user', content: RENDERED_DRAFT },
        { role: 'assistant', content: `echo: ${RENDERED_DRAFT}` },
        { role: 'user', content: 'Shorter, please' },
      ])
    }
    // Side by side: the second column to the right of the first, level with it.
    const boxA = await page.getByTestId('chat-output').boundingBox()
    const boxB = await page.getByTestId('compare-output').boundingBox()
    expect(boxB!.x).toBeGreaterThan(boxA!.x + boxA!.width - 1)
    expect(boxB!.y).toBe(boxA!.y)
    expect(problems).toEqual([])
  })
})

describe('the chat panel with shared variables overridden', () => {
  it('sends the overrides as `variables` with the draft: the LLM receives the render they change', async () => {
    const { context, page, problems } = await newPage(browser)
    try {
      await open(page)
      await page.getByTestId('template-editor').fill(DRAFT)
      await textOf(page, 'render-output', [RENDERED_DRAFT])
      await page
        .locator('[data-testid=variable][data-path="vscode.programming_language"] [data-testid=variable-override]')
        .fill('"rust"')
      await textOf(page, 'render-output', [`Draft: rate ${SYMBOL} in rust.`])
      await page.getByTestId('chat-model').fill('echo-override')
      const request = page.waitForRequest((r) => r.url() === `${dev.url}/api/prompts/${PROMPT}/chat`)
      await page.getByTestId('chat-button').click()
      expect((await request).postDataJSON()).toMatchObject({
        draft: { prompt: DRAFT },
        variables: { vscode: { programming_language: 'rust' } },
      })
      const turn = await answered(page, 'chat', 1)
      expect(await turn.locator('.chat-text').textContent()).toBe(`echo: Draft: rate ${SYMBOL} in rust.`)
      expect(messagesOf((await received('echo-override'))[0])).toEqual([
        { role: 'user', content: `Draft: rate ${SYMBOL} in rust.` },
      ])
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})
