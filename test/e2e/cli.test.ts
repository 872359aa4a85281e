// The CLI as extension authors run it (`npx ai-prompt-shell ...`, a separate
// Node process): publish the examples into a real Redis through the
// Upstash-protocol bridge, then read them back through the Worker under
// wrangler dev, and render through it.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedis } from '../support/redis-server'
import type { RedisServer } from '../support/redis-server'
import { startBridge } from '../support/upstash-bridge'
import type { Bridge } from '../support/upstash-bridge'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

const run = promisify(execFile)

let redis: RedisServer
let bridge: Bridge
let dev: DevServer
let token: string

/** `npx ai-prompt-shell ...args`: its exit status and output, failure or not. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['ai-prompt-shell', ...args], {
      env: { ...process.env, API_TOKEN: '' },
    })
    return { code: 0, stdout, stderr }
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

beforeAll(async () => {
  redis = await startRedis()
  bridge = await startBridge({ redisPort: redis.port })
  const res = await fetch(`${bridge.url}/__bridge/databases`, { method: 'POST' })
  token = ((await res.json()) as { token: string }).token
  dev = await startDev({ UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: token })
}, 60_000)

afterAll(async () => {
  await dev?.stop()
  await bridge?.stop()
  await redis?.stop()
})

describe('npx ai-prompt-shell', () => {
  it('publishes records that the Worker then serves', async () => {
    const before = (await (await fetch(`${dev.url}/api/extensions`)).json()) as { data: unknown[] }
    expect(before.data).toEqual([])

    const published = await cli('publish', 'examples', '--url', bridge.url, '--token', token)
    expect(published.stderr).not.toMatch(/error/)
    expect(published.code).toBe(0)
    expect(published.stdout).toContain('SET shenma:extensions:evaluator')
    expect(published.stdout).toMatch(/published 9 records/)

    const after = (await (await fetch(`${dev.url}/api/extensions`)).json()) as { data: { id: string }[] }
    expect(after.data.map((e) => e.id)).toEqual(['evaluator'])
    const tools = (await (await fetch(`${dev.url}/api/tools`)).json()) as { data: { id: string }[] }
    expect(tools.data.map((t) => t.id).sort()).toEqual(['codebase_lookup_ref', 'greeter_greet', 'translate_zh_en'])
  })

  it('renders a published prompt through the running service', async () => {
    const rendered = await cli('render', 'evaluator.quick_review', '--args', '{"code": "x := 1"}', '--url', dev.url)
    expect(rendered.code).toBe(0)
    expect(rendered.stdout).toMatch(
      /^Review this go code \(frameworks: gin, gorm, gin-swagger\) in one paragraph:\nx := 1\n$/,
    )
  })

  it('prints the service error of a render and exits 1', async () => {
    const rendered = await cli('render', 'evaluator.quick_review', '--url', dev.url)
    expect(rendered.code).toBe(1)
    expect(rendered.stderr).toMatch(/^INVALID_ARGS: invalid args: code is required$/m)
  })

  it('publishes nothing when a file is invalid', async () => {
    const published = await cli(
      'publish',
      'examples/extensions',
      'jsonschema/tool.json',
      '--url',
      bridge.url,
      '--token',
      token,
    )
    expect(published.code).toBe(1)
    expect(published.stderr).toMatch(/^error: jsonschema\/tool.json: has no key/m)
    expect(published.stdout).not.toMatch(/SET/)
  })
})
