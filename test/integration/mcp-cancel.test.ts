// A tools/call the render gives up is cancelled at the MCP server
// (`notifications/cancelled`), against the SDK's own server keeping a session:
// its `hold` tool answers only when its request's signal aborts, which the SDK
// does on the cancellation of that request id, and records the reason.
// Nothing is slept on: each test waits on the recorded cancellation itself,
// within a bound, or counts the messages the server received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshRedis, mcpServer, renderStored, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { mcpTool } from '../support/records'
import type { Env } from '../../lib/env'

const mcp = mcpServer()
const tools = toolServer()
let db: TestRedis

/** How long a test waits for the cancellation it expects: far more than it takes, far less than the test's timeout. */
const WITHIN_MS = 5000

beforeAll(async () => {
  db = await freshRedis()
  const session = (group: string) => `${mcp.url}-session?group=${group}`
  await db.redis.mset({
    'shenma:tools:timeout:hold': mcpTool('timeout', 'hold', session('cancel-timeout')),
    'shenma:tools:deadline:hold': mcpTool('deadline', 'hold', session('cancel-deadline')),
    'shenma:tools:chatty:chatter': mcpTool('chatty', 'chatter', `${mcp.url}-session-sse?group=cancel-bytes`, {
      parameters: { bytes: { type: 'integer' } },
    }),
    'shenma:tools:done:echo': mcpTool('done', 'echo', session('cancel-none'), {
      tool: 'echo_text',
      parameters: { text: { type: 'string' } },
    }),
    'shenma:tools:done:boom': mcpTool('done', 'boom', session('cancel-none')),
    'shenma:tools:handshake:hang': mcpTool('handshake', 'hang', `${tools.url}/hang/mcp?group=cancel-handshake`),
  })
})
afterAll(() => db.release())

const render = (name: string, prompt: string, env: Env) =>
  renderStored(db, `team.${name}`, prompt, { ...db.env, ...env })

/** The handshake and the call, as the server counts them. */
const CALLED = { initialize: 1, 'notifications/initialized': 1, 'tools/call': 1 }

describe('an MCP tool call given up', () => {
  it('past its own timeout is cancelled at the server, whose handler stops with our reason', async () => {
    await mcp.reset('cancel-timeout')
    const { status, body } = await render('held', '[{{timeout_hold}}]', {
      RENDER_TIMEOUT_MS: '10000',
      TOOL_TIMEOUT_MS: '1000',
    })
    expect({ status, prompt: body.rendered_prompt, warnings: body.warnings }).toEqual({
      status: 200,
      prompt: '[]',
      warnings: [{ code: 'TOOL_FAILED', tool: 'timeout_hold', message: 'timed out after 1000 ms' }],
    })
    // The handler's own request id: the cancellation named the call, not the handshake.
    expect(await mcp.cancelled('cancel-timeout', WITHIN_MS)).toEqual([
      { requestId: expect.any(Number), reason: 'the call passed TOOL_TIMEOUT_MS (1000 ms)' },
    ])
    expect(await mcp.rpc('cancel-timeout')).toEqual({ ...CALLED, 'notifications/cancelled': 1 })
  })

  it("at the render's deadline is cancelled at the server too", async () => {
    await mcp.reset('cancel-deadline')
    const { status, body } = await render('held_late', '[{{deadline_hold}}]', {
      RENDER_TIMEOUT_MS: '1000',
      TOOL_TIMEOUT_MS: '10000',
    })
    expect({ status, code: body.code }).toEqual({ status: 503, code: 'RENDER_TIMEOUT' })
    expect(await mcp.cancelled('cancel-deadline', WITHIN_MS)).toEqual([
      { requestId: expect.any(Number), reason: 'the render passed its deadline' },
    ])
    expect(await mcp.rpc('cancel-deadline')).toEqual({ ...CALLED, 'notifications/cancelled': 1 })
  })

  it('whose event stream passed TOOL_MAX_BYTES before its reply is cancelled at the server', async () => {
    await mcp.reset('cancel-bytes')
    const { status, body } = await render('chatty', '[{{chatty_chatter 100000}}]', {
      RENDER_TIMEOUT_MS: '10000',
      TOOL_TIMEOUT_MS: '5000',
      TOOL_MAX_BYTES: '10000',
    })
    expect({ status, prompt: body.rendered_prompt, warnings: body.warnings }).toEqual({
      status: 200,
      prompt: '[]',
      warnings: [
        { code: 'TOOL_FAILED', tool: 'chatty_chatter', message: 'answered more than TOOL_MAX_BYTES (10000 bytes)' },
      ],
    })
    expect(await mcp.cancelled('cancel-bytes', WITHIN_MS)).toEqual([
      { requestId: expect.any(Number), reason: 'its answer passed TOOL_MAX_BYTES (10000 bytes)' },
    ])
  })
})

describe('no cancellation', () => {
  it('follows a call that got its reply, a result or an error', async () => {
    await mcp.reset('cancel-none')
    const { status, body } = await render('answered', '[{{done_echo "a"}}][{{done_boom}}]', {
      RENDER_TIMEOUT_MS: '10000',
      TOOL_TIMEOUT_MS: '5000',
    })
    expect({ status, prompt: body.rendered_prompt }).toEqual({ status: 200, prompt: '[echo: a][]' })
    expect(body.warnings).toMatchObject([{ code: 'TOOL_FAILED', tool: 'done_boom' }])
    // The Worker's work after its answer (waitUntil) is done when the harness returns: any cancellation is in.
    expect(await mcp.rpc('cancel-none')).toEqual({ ...CALLED, 'tools/call': 2 })
  })

  it('goes to an initialize, even one the call gave up on', async () => {
    await tools.reset('cancel-handshake')
    const { status, body } = await render('handshake', '[{{handshake_hang}}]', {
      RENDER_TIMEOUT_MS: '10000',
      TOOL_TIMEOUT_MS: '300',
    })
    expect({ status, prompt: body.rendered_prompt, warnings: body.warnings }).toEqual({
      status: 200,
      prompt: '[]',
      warnings: [{ code: 'TOOL_FAILED', tool: 'handshake_hang', message: 'timed out after 300 ms' }],
    })
    const { requests } = await tools.idle('cancel-handshake')
    const methods = requests.map((key) => (JSON.parse(key.slice(key.indexOf('{'))) as { method: string }).method)
    expect(methods).toEqual(['initialize'])
  })
})
