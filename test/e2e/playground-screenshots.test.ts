// The playground as a reader sees it, for the README and for review: the
// example catalogue's ticket triage (a render with four tool calls) on `npm
// run dev`, at 1280 and 900 px wide, light and dark. Saved to
// .ci/artifacts/playground-{1280,900}-{light,dark}.png. With
// UPDATE_README_IMAGE=1 the 1280 light one also replaces
// docs/images/playground.png, the README's (committed: a test run leaves the
// tree as it was). Each shot is checked for what it shows
// (a successful render, the waterfall, no error) and for not asking any other
// origin for anything.
import { copyFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium } from '../support/browser'
import { newPage, otherOrigins, textOf } from '../support/playground-page'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

const ROOT = join(import.meta.dirname, '../..')
const ARTIFACTS = join(ROOT, '.ci/artifacts')
const README_IMAGE = join(ROOT, 'docs/images/playground.png')
const PROMPT = 'tickets.triage'

let dev: DevServer
let browser: Browser

beforeAll(async () => {
  dev = await startDev()
  browser = await launchChromium()
  await mkdir(ARTIFACTS, { recursive: true })
}, 90_000)
afterAll(async () => {
  await browser?.close()
  await dev?.stop()
})

describe('the playground seen', () => {
  for (const width of [1280, 900])
    for (const colorScheme of ['light', 'dark'] as const)
      it(`at ${width} px, ${colorScheme}`, async () => {
        const { context, page, problems, requests } = await newPage(browser, {
          viewport: { width, height: 800 },
          colorScheme,
        })
        try {
          await page.goto(`${dev.url}/playground#${PROMPT}`)
          await textOf(page, 'render-output', ['Triage ticket SHOP-101'])
          await textOf(page, 'timing', ['tickets_lookup', 'greeter_greet'])
          expect(await page.locator('[data-testid="render-output"] .error').count()).toBe(0)
          // The theme follows the system: the page's background is dark in dark mode.
          const background = await page.evaluate('getComputedStyle(document.documentElement).backgroundColor')
          const [r = 0, g = 0, b = 0] = (String(background).match(/\d+/g) ?? []).map(Number)
          expect((r + g + b) / 3 < 128).toBe(colorScheme === 'dark')
          // Nothing wider than the window: no sideways scrolling at either width.
          expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width)
          const path = join(ARTIFACTS, `playground-${width}-${colorScheme}.png`)
          // At 900 px the result is under the prompt: the whole page, to show it too.
          await page.screenshot({ path, fullPage: width === 900 })
          if (width === 1280 && colorScheme === 'light' && process.env.UPDATE_README_IMAGE === '1') {
            await mkdir(join(ROOT, 'docs/images'), { recursive: true })
            await copyFile(path, README_IMAGE)
          }
          expect(otherOrigins(requests, dev.url)).toEqual([])
          expect(problems).toEqual([])
        } finally {
          await context.close()
        }
      })
})
