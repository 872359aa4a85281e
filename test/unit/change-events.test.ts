// The webhook settings (WEBHOOK_URLS, WEBHOOK_SECRET) and the bounds of one change event (lib/changes).
import { describe, expect, it } from 'vitest'
import { MAX_AFFECTED_PROMPTS, MAX_EVENT_BYTES } from '../../lib/changes'
import type { Change } from '../../lib/changes'
import { eventBody } from '../../lib/changes/events'
import { ServiceError } from '../../lib/errors'
import { settingsFrom } from '../../lib/settings'
import { documentedVerifier } from '../support/webhook-receiver'
import { signature } from '../../lib/changes'

function misconfiguredBy(env: Record<string, string>): unknown {
  try {
    settingsFrom(env).webhooks
  } catch (e) {
    return e
  }
  return undefined
}

const change: Change = {
  action: 'write',
  kind: 'environs',
  id: 'team.style',
  label: null,
  versions: [2],
  by: 'admin',
  at: '2026-11-28T06:00:00.000Z',
  request_id: null,
}

describe('the webhook settings', () => {
  it('take comma-separated http(s) URLs with a secret; unset, none', () => {
    expect(settingsFrom({}).webhooks.urls).toEqual([])
    const settings = settingsFrom({
      WEBHOOK_URLS: ' https://a.example/h , http://b.example:8080/x',
      WEBHOOK_SECRET: 's',
    })
    expect(settings.webhooks.urls).toEqual(['https://a.example/h', 'http://b.example:8080/x'])
    expect(settings.secrets).toContain('s')
  })

  it('refuse more than 10 URLs, a URL that is not one, a scheme or host the egress rules refuse, and no secret', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => `https://h${i}.example/`).join(',')
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ WEBHOOK_URLS: eleven, WEBHOOK_SECRET: 's' }, 'WEBHOOK_URLS', /11 URLs, more than 10/],
      [{ WEBHOOK_URLS: 'not a url', WEBHOOK_SECRET: 's' }, 'WEBHOOK_URLS', /not a URL/],
      [{ WEBHOOK_URLS: 'ftp://a.example/', WEBHOOK_SECRET: 's' }, 'WEBHOOK_URLS', /scheme ftp:/],
      [
        { WEBHOOK_URLS: 'https://evil.example/', WEBHOOK_SECRET: 's', TOOL_ALLOWED_HOSTS: 'a.example' },
        'WEBHOOK_URLS',
        /evil\.example is not in TOOL_ALLOWED_HOSTS/,
      ],
      [{ WEBHOOK_URLS: 'https://a.example/' }, 'WEBHOOK_SECRET', /is not set, though WEBHOOK_URLS is/],
    ]
    for (const [env, setting, message] of cases) {
      const error = misconfiguredBy(env)
      expect(error, JSON.stringify(env)).toBeInstanceOf(ServiceError)
      expect(error).toMatchObject({ code: 'MISCONFIGURED', extra: { setting } })
      expect((error as Error).message).toMatch(message)
    }
    expect(
      misconfiguredBy({ WEBHOOK_URLS: 'https://a.example/', WEBHOOK_SECRET: 's', TOOL_ALLOWED_HOSTS: 'a.example' }),
    ).toBe(undefined)
  })
})

describe('a change event', () => {
  it('carries the change and its affected prompts', () => {
    expect(JSON.parse(eventBody(change, { ids: ['a.b'], complete: true }))).toEqual({
      ...change,
      affected_prompts: ['a.b'],
    })
  })

  it(`lists ${MAX_AFFECTED_PROMPTS} affected prompts at most, and says when it cut them or the scan stopped`, () => {
    const ids = Array.from({ length: 150 }, (_, i) => `p.n${i}`)
    const cut = JSON.parse(eventBody(change, { ids, complete: true })) as Record<string, unknown>
    expect(cut.affected_prompts).toEqual(ids.slice(0, MAX_AFFECTED_PROMPTS))
    expect(cut.affected_truncated).toBe(true)
    const partial = JSON.parse(eventBody(change, { ids: ['a.b'], complete: false })) as Record<string, unknown>
    expect(partial).toMatchObject({ affected_prompts: ['a.b'], affected_truncated: true })
  })

  it(`stays within ${MAX_EVENT_BYTES} bytes, whatever the ids`, () => {
    const ids = Array.from({ length: 100 }, (_, i) => `${'é'.repeat(250)}.${i}`)
    const body = eventBody(change, { ids, complete: true })
    expect(new TextEncoder().encode(body).length).toBeLessThanOrEqual(MAX_EVENT_BYTES)
    const event = JSON.parse(body) as { affected_prompts: string[]; affected_truncated: boolean }
    expect(event.affected_prompts.length).toBeGreaterThan(0)
    expect(event.affected_prompts.length).toBeLessThan(100)
    expect(event.affected_truncated).toBe(true)
  })
})

describe('the signature', () => {
  it("is what docs/webhooks.md's snippet verifies, and not for another body, secret or old time", async () => {
    const verify = await documentedVerifier()
    const body = eventBody(change, { ids: [], complete: true })
    const now = Math.floor(Date.now() / 1000)
    expect(await verify('k', await signature('k', now, body), body)).toBe(true)
    expect(await verify('k', await signature('k', now, body), `${body} `)).toBe(false)
    expect(await verify('other', await signature('k', now, body), body)).toBe(false)
    expect(await verify('k', await signature('k', now - 3600, body), body)).toBe(false)
    expect(await verify('k', undefined, body)).toBe(false)
  })
})
