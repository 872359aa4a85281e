// The README's first command, as a newcomer runs it: `npm run dev` on a
// machine with no Redis and no configuration serves the example catalogue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

let dev: DevServer

beforeAll(async () => {
  dev = await startDev()
}, 60_000)
afterAll(() => dev?.stop())

describe('npm run dev', () => {
  it('serves the example extension from the embedded store', async () => {
    const res = await fetch(`${dev.url}/api/extensions`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as { data: { id: string }[] }
    expect(body.data.map((e) => e.id)).toEqual(['evaluator'])
  })

  it('says in its log that the store is the embedded one', async () => {
    await fetch(`${dev.url}/health`)
    await dev.outputMatching(/"msg":"using the embedded store/)
    expect(dev.output().match(/using the embedded store/g)).toHaveLength(1)
  })

  it('writes exactly one JSON log line per request, carrying the id it answers with', async () => {
    const res = await fetch(`${dev.url}/api/prompts/evaluator.quick_review/render`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'e2e-one-line' },
      body: JSON.stringify({ args: { code: 'x := 1' } }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-request-id')).toBe('e2e-one-line')
    // The whole line: its end, not only its id, has arrived.
    await dev.outputMatching(/"request_id":"e2e-one-line"[^\n]*\}\n/)
    const lines = dev
      .output()
      .split('\n')
      .filter((l) => l.includes('e2e-one-line'))
    expect(lines).toHaveLength(1)
    expect(JSON.parse((lines[0] as string).slice((lines[0] as string).indexOf('{')))).toMatchObject({
      msg: 'request',
      route: '/api/prompts/:prompt_id/render',
      status: 200,
      prompt_id: 'evaluator.quick_review',
    })
  })
})
