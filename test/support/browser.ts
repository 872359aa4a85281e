// Debian's chromium (`apt-get install chromium`), driven by playwright-core,
// which downloads no browser of its own.
import { chromium } from 'playwright-core'
import type { Browser } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'

/** A headless Chromium whose own background traffic (updates, sync, field trials) stays home: only the page's requests leave it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
