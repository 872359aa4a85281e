// The service's secrets kept out of what it quotes of an upstream: the forms an echo can carry them in, and the
// clipping of a quote that may end inside one.
import { describe, expect, it } from 'vitest'
import { shortReason } from '../../lib/egress'
import type { Env } from '../../lib/env'
import { settingsFrom } from '../../lib/settings'
import { REDACTED, redact, redactedHead, withSecretsOf } from '../../lib/redact'

const KEY = 'sk-live-7f3a9c21b8e4d650'
const ROUTED = 'anthropic-key-0a1b2c3d4e5f'
const env: Env = {
  LLM_API_KEY: KEY,
  API_TOKEN: 'reader-token-2f9e',
  ADMIN_TOKEN: 'admin-token-9c8b',
  UPSTASH_REDIS_REST_TOKEN: 'upstash-token-77aa',
  LLM_ROUTES: JSON.stringify({ claude: { api: 'anthropic', baseURL: 'http://x', apiKeyVar: 'CLAUDE_KEY' } }),
  ...({ CLAUDE_KEY: ROUTED } as Env),
}
const inScope = <T>(fn: () => T, over: Env = env): T => withSecretsOf(settingsFrom(over).secrets, fn)

describe('redact', () => {
  it('replaces every configured secret: the keys, the routes’ keys, the tokens', () => {
    for (const secret of [KEY, ROUTED, env.API_TOKEN, env.ADMIN_TOKEN, env.UPSTASH_REDIS_REST_TOKEN] as string[]) {
      expect(inScope(() => redact(`before ${secret} after ${secret}`))).toBe(`before ${REDACTED} after ${REDACTED}`)
    }
  })

  it('finds the key in the headers an echo shows: Bearer, x-api-key, percent-encoded, JSON-escaped', () => {
    const echo = `{"headers":{"authorization":"Bearer ${KEY}","x-api-key":"${KEY}"},"url":"/v1?key=${encodeURIComponent(KEY)}"}`
    expect(inScope(() => redact(echo))).not.toContain(KEY)
    const quoted = 'key"with\\quotes-long'
    const escaped = JSON.stringify({ token: quoted })
    expect(inScope(() => redact(escaped), { API_TOKEN: quoted })).toBe(`{"token":"${REDACTED}"}`)
  })

  it('finds the key inside base64 at each alignment (a Basic header), leaving a byte of it at most at each end', () => {
    for (const user of ['', 'u', 'us', 'user']) {
      const basic = btoa(`${user}:${KEY}`)
      const said = inScope(() => redact(`Authorization: Basic ${basic}`))
      expect(said).toContain(REDACTED)
      // What is left of the encoding is its ends: at most the user, the colon and two characters each side.
      const left = said.replace('Authorization: Basic ', '').replace(REDACTED, '')
      expect(left.length).toBeLessThanOrEqual(Math.ceil(((user.length + 1) * 4) / 3) + 4)
      const urlSafe = basic.replaceAll('+', '-').replaceAll('/', '_')
      expect(inScope(() => redact(urlSafe))).toContain(REDACTED)
    }
  })

  it('leaves text alone outside a scope, and secrets shorter than 8 characters', () => {
    expect(redact(`Bearer ${KEY}`)).toBe(`Bearer ${KEY}`)
    expect(inScope(() => redact('the token t and k'), { API_TOKEN: 't', LLM_API_KEY: 'k' })).toBe('the token t and k')
  })

  it('survives an LLM_ROUTES that is not JSON, or names a secret that is not set', () => {
    expect(inScope(() => redact(`x ${KEY}`), { LLM_API_KEY: KEY, LLM_ROUTES: '{' })).toBe(`x ${REDACTED}`)
    const routes = JSON.stringify({ m: { baseURL: 'http://x', apiKeyVar: 'UNSET' }, n: null })
    expect(inScope(() => redact(`x ${KEY}`), { LLM_API_KEY: KEY, LLM_ROUTES: routes })).toBe(`x ${REDACTED}`)
  })
})

describe('redactedHead', () => {
  it('searches a window of the text only, and says when it cut', () => {
    const long = `${'a'.repeat(90)}${KEY}${'b'.repeat(1_000_000)}`
    const { head, cut } = inScope(() => redactedHead(long, 100))
    expect(cut).toBe(true)
    expect(head.length).toBeLessThan(200)
    expect(head).toBe(`${'a'.repeat(90)}${REDACTED}${'b'.repeat(head.length - 90 - REDACTED.length)}`)
  })
})

describe('shortReason', () => {
  it('quotes an upstream redacted, then clipped: no key, nor the start of one cut by the clip', () => {
    const echo = `invalid header: Authorization: Bearer ${KEY}`
    expect(inScope(() => shortReason(echo, 300))).toBe(`invalid header: Authorization: Bearer ${REDACTED}`)
    for (let chars = 30; chars < echo.length + 5; chars++) {
      const said = inScope(() => shortReason(echo, chars))
      expect(said.length).toBeLessThanOrEqual(chars)
      expect(said).not.toContain(KEY.slice(0, 8))
    }
  })

  it('ends a quote cut in its window with the mark, even when redaction shortened it', () => {
    const said = inScope(() => shortReason(`${KEY.repeat(10)}${'z'.repeat(10_000)}`, 20))
    expect(said.endsWith('…')).toBe(true)
    expect(said).not.toContain(KEY.slice(0, 8))
  })
})
