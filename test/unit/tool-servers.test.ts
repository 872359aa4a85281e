import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { startToolServer, BAD_JSON, PLAIN_ANSWER, SECRET } from '../support/tool-server.js'
import type { Echo, ToolServer, ToolServerStats } from '../support/tool-server.js'
import { startMcpServer, BOOM_MESSAGE, LEAKY_FIRST_LINE } from '../support/mcp-server.js'
import type { McpServerStats, McpTestServer } from '../support/mcp-server.js'

describe('REST tool server', () => {
  let server: ToolServer

  beforeAll(async () => {
    server = await startToolServer()
  })
  afterAll(async () => {
    await server?.stop()
  })

  const stats = async (group: string): Promise<ToolServerStats> =>
    (await (await fetch(`${server.url}/__stats?group=${group}`)).json()) as ToolServerStats
  const reset = async (group: string): Promise<void> => {
    const res = await fetch(`${server.url}/__reset?group=${group}`, { method: 'POST' })
    expect(res.status).toBe(200)
  }

  it('echoes a GET with its query', async () => {
    const res = await fetch(`${server.url}/tools/search?q=hello%20world&limit=5&tag=a&tag=b`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json')
    const echo: Echo = await res.json()
    expect(echo).toEqual({
      method: 'GET',
      path: '/tools/search',
      query: { q: 'hello world', limit: '5', tag: ['a', 'b'] },
      body: null,
      headers: { 'content-type': null },
    })
  })

  it('echoes a POST with its JSON body, and the path as sent', async () => {
    const res = await fetch(`${server.url}/tools/items/a%2Fb`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', nested: { n: 1 } }),
    })
    expect(await res.json()).toEqual({
      method: 'POST',
      path: '/tools/items/a%2Fb',
      query: {},
      body: { name: 'x', nested: { n: 1 } },
      headers: { 'content-type': 'application/json' },
    })
  })

  it('echoes PUT and DELETE too', async () => {
    const put = (await (
      await fetch(`${server.url}/tools/items/7`, {
        method: 'PUT',
        body: '[1,2]',
        headers: { 'content-type': 'application/json' },
      })
    ).json()) as Echo
    expect([put.method, put.body]).toEqual(['PUT', [1, 2]])
    const del = (await (await fetch(`${server.url}/tools/items/7?force=true`, { method: 'DELETE' })).json()) as Echo
    expect([del.method, del.query, del.body]).toEqual(['DELETE', { force: 'true' }, null])
  })

  it('rejects a body that is not JSON with 400', async () => {
    const res = await fetch(`${server.url}/tools/x`, { method: 'POST', body: 'not json' })
    expect(res.status).toBe(400)
    expect(((await res.json()) as { error: string }).error).toMatch(/not JSON/)
  })

  it('delays the answer, and counts concurrent calls of a group', async () => {
    await reset('delayed')
    const started = Date.now()
    const answers = await Promise.all(
      [1, 2, 3].map((n) => fetch(`${server.url}/delay/150/tools/slow?group=delayed&n=${n}`).then((r) => r.json())),
    )
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
    expect(answers.map((a) => (a as Echo).query.n)).toEqual(['1', '2', '3'])
    const s = await stats('delayed')
    expect(s).toMatchObject({ active: 0, maxActive: 3, calls: 3 })
    expect([...s.requests].sort()).toEqual([
      'GET /delay/150/tools/slow?n=1',
      'GET /delay/150/tools/slow?n=2',
      'GET /delay/150/tools/slow?n=3',
    ])
  })

  it('answers the status asked for, with a JSON error body, combined with a delay', async () => {
    const started = Date.now()
    const res = await fetch(`${server.url}/delay/100/status/503/tools/x`)
    expect(Date.now() - started).toBeGreaterThanOrEqual(90)
    expect(res.status).toBe(503)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(await res.json()).toMatchObject({ status: 503, error: expect.any(String) })
    expect((await fetch(`${server.url}/status/404/tools/missing`)).status).toBe(404)
  })

  it('answers text/plain for /text and unparsable JSON for /badjson', async () => {
    const text = await fetch(`${server.url}/text/tools/x`)
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(await text.text()).toBe(PLAIN_ANSWER)

    const bad = await fetch(`${server.url}/badjson/tools/x`)
    expect(bad.status).toBe(200)
    expect(bad.headers.get('content-type')).toBe('application/json')
    expect(await bad.text()).toBe(BAD_JSON)
    await expect(fetch(`${server.url}/badjson/tools/x`).then((r) => r.json())).rejects.toThrow(SyntaxError)
  })

  it('hangs until the client gives up', async () => {
    await reset('hang')
    await expect(fetch(`${server.url}/hang/tools/x?group=hang`, { signal: AbortSignal.timeout(100) })).rejects.toThrow()
    expect(await stats('hang')).toMatchObject({ calls: 1, maxActive: 1 })
    // The server notices the closed connection.
    await expect.poll(async () => (await stats('hang')).active).toBe(0)
  })

  it('stops even while a request hangs', async () => {
    const other = await startToolServer()
    const controller = new AbortController()
    const pending = fetch(`${other.url}/hang/tools/x`, { signal: controller.signal }).catch((error: unknown) => error)
    await expect
      .poll(async () => (await (await fetch(`${other.url}/__stats`)).json()) as ToolServerStats)
      .toMatchObject({
        active: 1,
      })
    await other.stop()
    expect(await pending).toBeInstanceOf(Error)
    controller.abort()
  })

  it('redirects with the status asked for to the `to` parameter, and counts the hop', async () => {
    await reset('redir')
    const to = `${server.url}/tools/target?group=redir-target`
    const res = await fetch(`${server.url}/redirect/307/tools/x?group=redir&to=${encodeURIComponent(to)}`, {
      redirect: 'manual',
    })
    expect(res.status).toBe(307)
    expect(res.headers.get('location')).toBe(to)
    await res.body?.cancel()
    expect((await stats('redir')).calls).toBe(1)
    await expect(fetch(`${server.url}/redirect/200/tools/x`).then((r) => r.status)).resolves.toBe(400)
  })

  it('answers /big with that many bytes and a Content-Length, or chunked without one', async () => {
    await reset('big')
    const sized = await fetch(`${server.url}/big/200000/tools/x?group=big`)
    expect(sized.headers.get('content-length')).toBe('200000')
    expect((await sized.arrayBuffer()).byteLength).toBe(200000)
    const chunked = await fetch(`${server.url}/chunked/big/70000/tools/x?group=big`)
    expect(chunked.headers.get('content-length')).toBeNull()
    expect(await chunked.text()).toBe('x'.repeat(70000))
    expect(await stats('big')).toMatchObject({ calls: 2, cutShort: 0, bigBytesSent: 270000 })
  })

  it('stops writing a /big answer when the client goes away, and /__idle waits for that', async () => {
    await reset('cut')
    const res = await fetch(`${server.url}/big/100000000/tools/x?group=cut`)
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    await reader.cancel()
    const idle = (await (await fetch(`${server.url}/__idle?group=cut`)).json()) as ToolServerStats
    expect(idle).toMatchObject({ active: 0, calls: 1, cutShort: 1 })
    expect(idle.bigBytesSent).toBeLessThan(100000000)
  })

  it('puts SECRET in a /secret error body, and a BOM before a /bom answer', async () => {
    const secret = await fetch(`${server.url}/status/500/secret/tools/x`)
    expect(secret.status).toBe(500)
    expect(await secret.text()).toContain(SECRET)
    // Read as bytes: Response.text() drops a leading BOM.
    for (const path of ['/bom/text/tools/x', '/bom/tools/x']) {
      const bytes = new Uint8Array(await (await fetch(`${server.url}${path}`)).arrayBuffer())
      expect([...bytes.slice(0, 4)]).toEqual([0xef, 0xbb, 0xbf, path.includes('text') ? 'p'.charCodeAt(0) : 0x7b])
    }
  })

  it('keeps request keys without the group, with sorted query and body keys; reset zeroes the group', async () => {
    await reset('keys')
    await fetch(`${server.url}/tools/k?z=1&group=keys&a=2`)
    await fetch(`${server.url}/tools/k?group=keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ b: 1, a: { d: 2, c: 3 } }),
    })
    expect(await stats('keys')).toEqual({
      active: 0,
      maxActive: 1,
      calls: 2,
      requests: ['GET /tools/k?a=2&z=1', 'POST /tools/k {"a":{"c":3,"d":2},"b":1}'],
      cutShort: 0,
      bigBytesSent: 0,
    })
    // Other groups are untouched by these calls.
    expect((await stats('never-used')).calls).toBe(0)

    await reset('keys')
    expect(await stats('keys')).toEqual({
      active: 0,
      maxActive: 0,
      calls: 0,
      requests: [],
      cutShort: 0,
      bigBytesSent: 0,
    })
  })

  it('counts calls without a group under default', async () => {
    await reset('default')
    await fetch(`${server.url}/tools/d`)
    expect((await stats('default')).requests).toEqual(['GET /tools/d'])
    const res = await fetch(`${server.url}/__stats`)
    expect(((await res.json()) as ToolServerStats).calls).toBe(1)
  })
})

describe('MCP server, through the SDK client', () => {
  let server: McpTestServer
  let client: Client

  beforeAll(async () => {
    server = await startMcpServer()
    client = new Client({ name: 'tool-servers-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
  })
  afterAll(async () => {
    await client?.close()
    await server?.stop()
  })

  const calls = async (group = 'default'): Promise<Record<string, number>> =>
    ((await (await fetch(new URL(`/__stats?group=${group}`, server.url))).json()) as McpServerStats).calls

  it('lists its tools', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([
      'big',
      'boom',
      'chatter',
      'echo_text',
      'hold',
      'leaky',
      'lookup_ref',
      'slow',
    ])
    const lookup = tools.find((t) => t.name === 'lookup_ref')
    expect(lookup?.inputSchema.properties).toHaveProperty('symbol')
    expect(lookup?.outputSchema?.properties).toHaveProperty('refs')
  })

  it('lookup_ref returns structuredContent and a text content', async () => {
    const result = await client.callTool({ name: 'lookup_ref', arguments: { symbol: 'Render' } })
    const refs = ['Render in main.go:12', 'Render in util.go:3']
    expect(result.structuredContent).toEqual({ refs })
    expect(result.isError).toBeFalsy()
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ refs }) }])
  })

  it('echo_text returns only text', async () => {
    const result = await client.callTool({ name: 'echo_text', arguments: { text: 'hi there' } })
    expect(result.content).toEqual([{ type: 'text', text: 'echo: hi there' }])
    expect(result.structuredContent).toBeUndefined()
  })

  it('slow waits, then answers', async () => {
    const started = Date.now()
    const result = await client.callTool({ name: 'slow', arguments: { ms: 100 } })
    expect(Date.now() - started).toBeGreaterThanOrEqual(90)
    expect(result.content).toEqual([{ type: 'text', text: 'slept' }])
  })

  it('boom returns isError', async () => {
    const result = await client.callTool({ name: 'boom', arguments: {} })
    expect(result.isError).toBe(true)
    expect(result.content).toEqual([{ type: 'text', text: BOOM_MESSAGE }])
  })

  it('big answers that many bytes of text; leaky fails with a long first line and the secret after it', async () => {
    const big = await client.callTool({ name: 'big', arguments: { bytes: 1000 } })
    expect(big.content).toEqual([{ type: 'text', text: 'x'.repeat(1000) }])
    const leaky = await client.callTool({ name: 'leaky', arguments: {} })
    expect(leaky.isError).toBe(true)
    expect(leaky.content).toEqual([{ type: 'text', text: `${LEAKY_FIRST_LINE}\n${SECRET}` }])
    expect(LEAKY_FIRST_LINE.length).toBeGreaterThan(100)
  })

  it('counts calls per tool', async () => {
    expect(await calls()).toEqual({ lookup_ref: 1, echo_text: 1, slow: 1, boom: 1, big: 1, leaky: 1 })
    await client.callTool({ name: 'lookup_ref', arguments: { symbol: 'x' } })
    expect((await calls()).lookup_ref).toBe(2)
  })

  it("hold answers only by being cancelled: the SDK client's notifications/cancelled reaches it in a session", async () => {
    const holding = new Client({ name: 'holding', version: '1.0.0' })
    await holding.connect(new StreamableHTTPClientTransport(new URL(`${server.url}-session?group=held`)))
    const abandon = new AbortController()
    const call = holding.callTool({ name: 'hold', arguments: {} }, undefined, { signal: abandon.signal })
    const settled = call.then(
      () => 'answered',
      () => 'rejected',
    )
    abandon.abort('the test gave up')
    expect(await settled).toBe('rejected')
    const cancelled = fetch(new URL('/__cancelled?group=held', server.url), { signal: AbortSignal.timeout(5000) })
    expect(await (await cancelled).json()).toEqual([{ requestId: expect.any(Number), reason: 'the test gave up' }])
    await holding.close()
  })

  it('keeps groups apart and resets them', async () => {
    const grouped = new Client({ name: 'grouped', version: '1.0.0' })
    await grouped.connect(new StreamableHTTPClientTransport(new URL(`${server.url}?group=g1`)))
    await grouped.callTool({ name: 'echo_text', arguments: { text: 'a' } })
    await grouped.close()
    expect(await calls('g1')).toEqual({ echo_text: 1 })
    expect((await calls()).echo_text).toBe(1)

    await fetch(new URL('/__reset?group=g1', server.url), { method: 'POST' })
    expect(await calls('g1')).toEqual({})
  })
})
