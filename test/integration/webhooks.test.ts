// Change events through the real CHANGE_EVENTS queue (wrangler.toml, simulated by
// Miniflare): a write queues its event, the Worker's queue consumer signs and POSTs
// it to the Node receiver of test/support/webhook-receiver.ts, which checks each
// signature with the snippet of docs/webhooks.md as written.
import { env as bindings } from 'cloudflare:test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inject } from 'vitest'
import type { Env } from '../../lib/env'
import { callAsAdmin, writableRedis } from '../support/harness'
import type { TestRedis } from '../support/harness'
import type { Delivery } from '../support/webhook-receiver'
import { WEBHOOK_TEST_SECRET } from '../support/webhook-receiver'

let db: TestRedis
let quiet: Env

beforeAll(async () => ({ db, env: quiet } = await writableRedis()))
afterAll(() => db.release())

const receiver = inject('webhookUrl')

/** The Worker's env with its events going to inbox `name`. */
function sendingTo(name: string): Env {
  return {
    ...quiet,
    WEBHOOK_URLS: `${receiver}/inbox/${name}`,
    WEBHOOK_SECRET: WEBHOOK_TEST_SECRET,
    CHANGE_EVENTS: (bindings as Env).CHANGE_EVENTS,
  }
}

async function put(env: Env, path: string, body: unknown): Promise<number> {
  const { status, body: answer } = await callAsAdmin(env, 'PUT', path, body)
  expect(status, JSON.stringify(answer)).toBe(200)
  return (answer.data as { version: number }).version
}

/** Inbox `name`'s deliveries once `count` arrived (the receiver holds the answer until then). */
async function deliveries(name: string, count: number): Promise<Delivery[]> {
  const res = await fetch(`${receiver}/__inbox/${name}/deliveries?count=${count}`)
  return (await res.json()) as Delivery[]
}

const eventOf = (d: Delivery) => JSON.parse(d.body) as Record<string, unknown>

describe('change events', () => {
  it('a write produces one event at the receiver, signed as docs/webhooks.md verifies', async () => {
    const env = sendingTo('one')
    const first = await put(env, '/api/prompts/hook.greet', { prompt: 'Hello {{.args.name}}' })
    const second = await put(env, '/api/prompts/hook.greet?label=beta', { prompt: 'Hi {{.args.name}}' })
    const got = await deliveries('one', 2)
    expect(got).toHaveLength(2)
    expect(got.map((d) => d.verified)).toEqual([true, true])
    const events = got.map(eventOf).sort((a, b) => String(a.label).localeCompare(String(b.label)))
    expect(events[0]).toMatchObject({
      action: 'write',
      kind: 'prompts',
      id: 'hook.greet',
      label: 'beta',
      versions: [second],
      by: 'admin',
      affected_prompts: ['hook.greet'],
    })
    expect(events[1]).toMatchObject({ label: null, versions: [first], affected_prompts: ['hook.greet'] })
    expect(typeof events[1]?.request_id).toBe('string')
    expect(got.map((d) => d.headers['x-delivery-attempt'])).toEqual(['1', '1'])
    // A signature over other bytes, or with another secret, is refused by the same snippet.
    const tampered = await fetch(`${receiver}/inbox/tampered`, {
      method: 'POST',
      headers: { 'x-signature': got[0]?.headers['x-signature'] as string },
      body: `${got[0]?.body} `,
    })
    expect(tampered.status).toBe(200)
    expect((await deliveries('tampered', 1)).map((d) => d.verified)).toEqual([false])
  })

  it('a write that changes nothing (skip_unchanged) sends no event', async () => {
    const env = sendingTo('unchanged')
    await put(quiet, '/api/prompts/hook.same', { prompt: 'Same' })
    await put(env, '/api/prompts/hook.same?skip_unchanged=true', { prompt: 'Same' })
    await put(env, '/api/prompts/hook.marker', { prompt: 'Marker' })
    expect((await deliveries('unchanged', 1)).map((d) => eventOf(d).id)).toEqual(['hook.marker'])
    // An event of the unchanged write would have been queued before the first marker's, so delivered by the time a
    // second marker's, queued after the first arrived, is: the second's arriving as the second shows there was none.
    await put(env, '/api/prompts/hook.marker2', { prompt: 'Marker 2' })
    expect((await deliveries('unchanged', 2)).map((d) => eventOf(d).id)).toEqual(['hook.marker', 'hook.marker2'])
  })

  it('a receiver failing twice then answering 200 gets the event on the third attempt, the same bytes each time', async () => {
    const plan = await fetch(`${receiver}/__inbox/flaky/plan`, { method: 'PUT', body: JSON.stringify([500, 503]) })
    expect(plan.status).toBe(200)
    await put(sendingTo('flaky'), '/api/prompts/hook.flaky', { prompt: 'Flaky' })
    const got = await deliveries('flaky', 3)
    expect(got.map((d) => d.headers['x-delivery-attempt'])).toEqual(['1', '2', '3'])
    expect(new Set(got.map((d) => d.headers['x-delivery-id'])).size).toBe(1)
    expect(new Set(got.map((d) => d.body)).size).toBe(1)
    expect(got.map((d) => d.verified)).toEqual([true, true, true])
    expect(eventOf(got[2] as Delivery)).toMatchObject({ id: 'hook.flaky', versions: [1] })
  }, 40_000)

  it("a change to a shared variable lists the prompts that read it (and a tool's, those that call it)", async () => {
    await put(quiet, '/api/environs/team.style', { tone: 'direct' })
    await put(quiet, '/api/prompts/hook.reads', { prompt: 'Be {{.team.style.tone}}' })
    await put(quiet, '/api/prompts/hook.reads_all', { prompt: '{{.team}}' })
    await put(quiet, '/api/prompts/hook.other', { prompt: 'No variables here' })
    const env = sendingTo('shared')
    await put(env, '/api/environs/team.style', { tone: 'gentle' })
    const [event] = (await deliveries('shared', 1)).map(eventOf)
    expect(event).toMatchObject({
      kind: 'environs',
      id: 'team.style',
      versions: [2],
      affected_prompts: ['hook.reads', 'hook.reads_all'],
    })
    expect(event).not.toHaveProperty('affected_truncated')

    const tool = {
      name: 'search',
      module: 'team',
      type: 'restful',
      restful: { url: '/search/{q}', method: 'GET' },
      description: 'Searches',
      parameters: { q: { type: 'string', description: 'What to look for' } },
    }
    await put(quiet, '/api/tools/team_search', tool)
    await put(quiet, '/api/prompts/hook.calls', { prompt: '{{(team_search "x").hits}}' })
    await put(sendingTo('tool'), '/api/tools/team_search', { ...tool, description: 'Searches the wiki' })
    const [toolEvent] = (await deliveries('tool', 1)).map(eventOf)
    expect(toolEvent).toMatchObject({ kind: 'tools', id: 'team_search', affected_prompts: ['hook.calls'] })
  })
})
