// The playground's versions panel in Chromium, against `npm run dev:redis` (a
// real redis-server, writes enabled with the dev admin token): the version
// shown is said with who wrote it and when; two versions picked show their
// diff and their renders side by side with the same args; the view moves to
// an older version; a draft saved into a label with the admin token is what
// the API then renders in that label; saving to the base asks first, in the page.
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { newPage, textOf } from '../support/playground-page'
import type { PlaygroundPage } from '../support/playground-page'
import { DEV_ADMIN_TOKEN, startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

const PROMPT = 'team.versioned'
const PARAMETERS = { name: { type: 'string', default: 'Ada' } }
const FIRST = 'Hello {{.args.name}}\nSee you.'
const SECOND = 'Hello {{.args.name}}\nHow are you?\nSee you.'

interface Answer {
  rendered_prompt?: unknown
  data?: { parameters?: { properties?: unknown } }
}

let dev: DevServer
let browser: Browser

/** What the API renders for the prompt in `label` (the base when null) with `name`. */
async function rendered(label: string | null, name: string): Promise<unknown> {
  const query = label === null ? '' : `?label=${label}`
  return (await dev.asAdmin<Answer>('POST', `/api/prompts/${PROMPT}/render${query}`, { args: { name } })).body
    .rendered_prompt
}

beforeAll(async () => {
  dev = await startDev({}, 'dev:redis')
  expect(
    (
      await dev.asAdmin<Answer>('PUT', `/api/prompts/${PROMPT}?message=first`, {
        prompt: FIRST,
        parameters: PARAMETERS,
      })
    ).status,
  ).toBe(200)
  expect(
    (
      await dev.asAdmin<Answer>('PUT', `/api/prompts/${PROMPT}?message=asks`, {
        prompt: SECOND,
        parameters: PARAMETERS,
      })
    ).status,
  ).toBe(200)
  browser = await launchChromium()
}, 90_000)
afterAll(async () => {
  await browser?.close()
  await dev?.stop()
})

describe("the playground's versions", () => {
  let shown: PlaygroundPage

  beforeAll(async () => {
    shown = await newPage(browser)
  })
  afterAll(() => shown?.context.close())

  it('says which version it shows, and shows the diff and side-by-side renders of two versions picked', async () => {
    const { page, problems } = shown
    await page.goto(`${dev.url}/playground#${PROMPT}`)
    await textOf(page, 'version-shown', ['showing: base · version 2', 'newest', 'by admin', 'UTC', 'asks'])
    await page.getByTestId('args-editor').fill(JSON.stringify({ name: 'Grace' }))
    await page.getByText('Compare two versions or labels').click()
    await page.getByTestId('version-a').selectOption('1')
    await page.getByTestId('version-b').selectOption('2')
    await page.getByRole('button', { name: 'Compare', exact: true }).click()
    await textOf(page, 'version-compare', ['A (base · version 1) → B (base · version 2)'])
    const diff = await page
      .getByTestId('version-diff')
      .locator('.diff > div')
      .evaluateAll((rows) => rows.map((row) => `${row.className} ${row.textContent}`))
    expect(diff).toEqual(['diff-same  Hello {{.args.name}}', 'diff-add +How are you?', 'diff-same  See you.'])
    expect(await page.getByTestId('compare-render-a').locator('pre').textContent()).toBe('Hello Grace\nSee you.')
    expect(await page.getByTestId('compare-render-b').locator('pre').textContent()).toBe(
      'Hello Grace\nHow are you?\nSee you.',
    )
    expect(problems).toEqual([])
  })

  it('moves the view to an older version: the editor holds its text and the panel says so', async () => {
    const { page, problems } = shown
    await page.getByTestId('version-showing').selectOption('1')
    await textOf(page, 'version-shown', ['showing: base · version 1 (by admin', 'first'])
    // The panel says what it shows once the prompt is loaded into the editor at that version.
    expect(await page.getByTestId('template-editor').inputValue()).toBe(FIRST)
    expect(problems).toEqual([])
  })

  it('saves the draft into a label with the admin token: the API renders it there, the base unchanged', async () => {
    const { page, problems, requests } = shown
    await page.getByTestId('template-editor').fill('Hi {{.args.name}} from the label')
    await page.getByText('Save the draft').click()
    await page.getByLabel('Label', { exact: true }).fill('feat-draft')
    await page.getByLabel('Version message').fill('a friendlier hello')
    await page.getByLabel('Token to write (ADMIN_TOKEN)').fill(DEV_ADMIN_TOKEN)
    await page.getByRole('button', { name: 'Save draft' }).click()
    await textOf(page, 'save-draft-note', [`Saved the draft as version`, `of prompts/${PROMPT} in label feat-draft`])
    await textOf(page, 'version-shown', ['showing: label feat-draft · version', 'a friendlier hello'])
    expect(await page.getByTestId('label-showing').inputValue()).toBe('feat-draft')
    expect(requests.filter((r) => r.startsWith('PUT '))).toEqual([
      `PUT ${dev.url}/api/prompts/${PROMPT}?message=a+friendlier+hello&label=feat-draft`,
    ])
    expect(await rendered('feat-draft', 'Bo')).toBe('Hi Bo from the label')
    expect(await rendered(null, 'Bo')).toBe('Hello Bo\nHow are you?\nSee you.')
    const stored = await dev.asAdmin<Answer>('GET', `/api/prompts/${PROMPT}?label=feat-draft`)
    expect(stored.body.data?.parameters?.properties).toEqual(PARAMETERS)
    expect(problems).toEqual([])
  })

  it('asks "Save to the base?" in the page before writing the base, then writes it', async () => {
    const { page, problems, requests } = shown
    await page.getByTestId('template-editor').fill('Hello {{.args.name}}, from the base')
    await page.getByLabel('Label', { exact: true }).fill('')
    const puts = () => requests.filter((r) => r.startsWith('PUT ')).length
    const before = puts()
    await page.getByRole('button', { name: 'Save draft' }).click()
    const confirm = page.getByRole('alertdialog', { name: 'Save to the base?' })
    await confirm.waitFor()
    expect(puts()).toBe(before)
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    expect(await confirm.isHidden()).toBe(true)
    expect(puts()).toBe(before)

    await page.getByRole('button', { name: 'Save draft' }).click()
    await confirm.getByRole('button', { name: 'Confirm' }).click()
    await textOf(page, 'save-draft-note', [`Saved the draft as version 3 of prompts/${PROMPT}.`])
    await textOf(page, 'version-shown', ['showing: base · version 3'])
    expect(puts()).toBe(before + 1)
    expect(await rendered(null, 'Bo')).toBe('Hello Bo, from the base')
    expect(await rendered('feat-draft', 'Bo')).toBe('Hi Bo from the label')
    expect(problems).toEqual([])
  })
})

describe("the playground's labels", () => {
  it('lists the labels that have records (GET /api/labels) and shows the prompt in the one picked', async () => {
    const { context, page, problems, requests } = await newPage(browser)
    try {
      await page.goto(`${dev.url}/playground#${PROMPT}`)
      await textOf(page, 'version-shown', ['showing: base · version 3'])
      expect(requests).toContain(`GET ${dev.url}/api/labels`)
      await page.getByTestId('label-showing').selectOption('feat-draft')
      await textOf(page, 'version-shown', ['showing: label feat-draft', 'a friendlier hello'])
      expect(await page.getByTestId('template-editor').inputValue()).toBe('Hi {{.args.name}} from the label')
      expect(requests).toContain(`GET ${dev.url}/api/prompts/${PROMPT}?label=feat-draft`)
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe('the playground moving between records', () => {
  let shown: PlaygroundPage

  beforeAll(async () => {
    // A label where the prompt is deleted: reading it there is a 404.
    expect((await dev.asAdmin<Answer>('DELETE', `/api/prompts/${PROMPT}?label=gone&message=hidden`)).status).toBe(200)
    shown = await newPage(browser)
  })
  afterAll(() => shown?.context.close())

  it('keeps a draft per version in the tab: another version opened and back, it is restored; "Back to the stored template" drops it', async () => {
    const { page, problems } = shown
    await page.goto(`${dev.url}/playground#${PROMPT}`)
    await textOf(page, 'version-shown', ['showing: base · version 3'])
    const editor = page.getByTestId('template-editor')
    await editor.fill('A draft of {{.args.name}}')
    await page.getByTestId('version-showing').selectOption('1')
    await textOf(page, 'version-shown', ['showing: base · version 1'])
    expect(await editor.inputValue()).toBe(FIRST)
    expect(await page.getByTestId('draft-note').textContent()).toBe('')
    await page.getByTestId('version-showing').selectOption('')
    await textOf(page, 'draft-note', ['Draft restored'])
    expect(await editor.inputValue()).toBe('A draft of {{.args.name}}')
    await textOf(page, 'render-output', ['A draft of Ada'])

    await page.getByRole('button', { name: 'Back to the stored template' }).click()
    expect(await editor.inputValue()).toBe('Hello {{.args.name}}, from the base')
    await page.getByTestId('version-showing').selectOption('1')
    await textOf(page, 'version-shown', ['showing: base · version 1'])
    await page.getByTestId('version-showing').selectOption('')
    await textOf(page, 'version-shown', ['showing: base · version 3'])
    expect(await editor.inputValue()).toBe('Hello {{.args.name}}, from the base')
    expect(await page.getByTestId('draft-note').textContent()).toBe('')
    expect(problems).toEqual([])
  })

  it('stays on the record shown when another cannot be read: the pickers, the renders and the URL keep to it', async () => {
    const { page, problems, requests } = shown
    await page.getByTestId('label-showing').selectOption({ label: 'another label…' })
    await page.getByLabel('Open: another label').fill('gone')
    await page.getByLabel('Open: another label').press('Enter')
    await textOf(page, 'versions', ['NOT_FOUND'])
    expect(await page.getByTestId('label-showing').inputValue()).toBe('')
    expect(await page.getByTestId('template-editor').inputValue()).toBe('Hello {{.args.name}}, from the base')
    await textOf(page, 'version-shown', ['showing: base · version 3'])
    const renders = () => requests.filter((r) => r.startsWith('POST ') && r.includes('/render')).length
    const before = renders()
    await page.getByTestId('render-button').click()
    await textOf(page, 'render-output', ['Hello Ada, from the base'])
    const render = requests.filter((r) => r.startsWith('POST ') && r.includes('/render'))[before]
    expect(render).toBe(`POST ${dev.url}/api/prompts/${PROMPT}/render?explain=true`)
    expect(new URL(page.url()).search).toBe('')
    expect(problems).toEqual([`404 ${dev.url}/api/prompts/${PROMPT}?label=gone`])
    problems.length = 0
  })

  it('names the label opened in the URL and the header: a reload opens the same label', async () => {
    const { page, problems } = shown
    await page.getByTestId('label-showing').selectOption('feat-draft')
    await textOf(page, 'version-shown', ['showing: label feat-draft'])
    expect(new URL(page.url()).searchParams.get('label')).toBe('feat-draft')
    expect(await page.locator('#service').textContent()).toContain('· label: feat-draft')
    await page.reload()
    await textOf(page, 'version-shown', ['showing: label feat-draft'])
    expect(await page.getByTestId('template-editor').inputValue()).toBe('Hi {{.args.name}} from the label')
    await page.getByTestId('label-showing').selectOption('')
    await textOf(page, 'version-shown', ['showing: base'])
    expect(new URL(page.url()).searchParams.has('label')).toBe(false)
    expect(await page.locator('#service').textContent()).not.toContain('label:')
    expect(problems).toEqual([])
  })

  it('ignores a version picked while a label typed is not committed, and says why', async () => {
    const { page, problems, requests } = shown
    const count = requests.length
    await page.getByTestId('label-showing').selectOption({ label: 'another label…' })
    await page.getByLabel('Open: another label').fill('Not A Label')
    await page.getByTestId('version-showing').selectOption('1')
    await textOf(page, 'versions', ['A label is 1 to 63 lowercase letters'])
    expect(await page.getByTestId('version-showing').inputValue()).toBe('')
    expect(requests.slice(count).filter((r) => r.includes('/api/prompts/'))).toEqual([])
    expect(problems).toEqual([])
  })

  it('compares a side on "newest" as that version by number', async () => {
    const { page, problems, requests } = shown
    await page.getByTestId('label-showing').selectOption('')
    await textOf(page, 'version-shown', ['showing: base · version 3'])
    await page.getByText('Compare two versions or labels').click()
    for (const side of ['a', 'b']) {
      await page.getByTestId(`label-${side}`).selectOption('')
      // The base's versions listed (feat-draft, shown before, has only one).
      await page.getByTestId(`version-${side}`).locator('option[value="3"]').waitFor({ state: 'attached' })
    }
    await page.getByTestId('version-a').selectOption('1')
    await page.getByTestId('version-b').selectOption('')
    const count = requests.length
    await page.getByRole('button', { name: 'Compare', exact: true }).click()
    await textOf(page, 'version-compare', ['A (base · version 1) → B (base · version 3)'])
    expect(requests.slice(count).filter((r) => r.includes('/render'))).toEqual([
      `POST ${dev.url}/api/prompts/${PROMPT}/render?version=1`,
      `POST ${dev.url}/api/prompts/${PROMPT}/render?version=3`,
    ])
    expect(problems).toEqual([])
  })

  it('writes one version for a double submit, and says a draft of an older version becomes the newest', async () => {
    const { page, problems, requests } = shown
    await page.getByTestId('version-showing').selectOption('2')
    await textOf(page, 'version-shown', ['showing: base · version 2'])
    await page.getByText('Save the draft').click()
    await textOf(page, 'save-draft-base', ["built on version 2's text", 'becomes the newest version (after 3)'])
    await page.getByTestId('template-editor').fill('Hello {{.args.name}} once')
    await page.getByLabel('Label', { exact: true }).fill('feat-once')
    await page.getByLabel('Token to write (ADMIN_TOKEN)').fill(DEV_ADMIN_TOKEN)
    const puts = () => requests.filter((r) => r.startsWith('PUT ')).length
    const before = puts()
    await page.getByRole('button', { name: 'Save draft' }).dblclick()
    await textOf(page, 'version-shown', ['showing: label feat-once'])
    expect(puts()).toBe(before + 1)
    expect(await page.locator('#admin-token').inputValue()).toBe(DEV_ADMIN_TOKEN)
    expect(problems).toEqual([])
  })
})

describe('the playground asking "Save to the base?"', () => {
  it('closes on Escape, and gives the focus back to "Save draft" on Cancel', async () => {
    const { context, page, problems } = await newPage(browser)
    try {
      await page.goto(`${dev.url}/playground#${PROMPT}`)
      await textOf(page, 'version-shown', ['showing: base'])
      await page.getByText('Save the draft').click()
      const save = page.getByRole('button', { name: 'Save draft' })
      const confirm = page.getByRole('alertdialog', { name: 'Save to the base?' })
      const focused = () =>
        page.evaluate(
          () =>
            (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement
              .textContent,
        )
      await save.click()
      await confirm.waitFor()
      await page.keyboard.press('Escape')
      await confirm.waitFor({ state: 'hidden' })
      expect(await focused()).toBe('Save draft')
      await save.click()
      await confirm.getByRole('button', { name: 'Cancel' }).click()
      await confirm.waitFor({ state: 'hidden' })
      expect(await focused()).toBe('Save draft')
      expect(problems).toEqual([])
    } finally {
      await context.close()
    }
  })
})
