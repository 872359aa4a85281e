// The MCP endpoint as an MCP client meets it: the SDK's own client over real
// HTTP against `npm run dev` (the embedded examples, no Redis), with and
// without API_TOKEN.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { StreamableHTTPClientTransportOptions } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

const TOKEN = 't'

let open: DevServer
let guarded: DevServer

beforeAll(async () => {
  open = await startDev()
  guarded = await startDev({ API_TOKEN: TOKEN })
}, 120_000)
afterAll(() => Promise.all([open?.stop(), guarded?.stop()]))

const clients: Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
})

async function connect(dev: DevServer, options: StreamableHTTPClientTransportOptions = {}): Promise<Client> {
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' })
  clients.push(client)
  await client.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`), options))
  return client
}

describe('POST /mcp on npm run dev', () => {
  it('lists the example prompts', async () => {
    const client = await connect(open)
    const { prompts } = await client.listPrompts()
    expect(prompts.map((p) => p.name).sort()).toEqual([
      'evaluator.evaluate_quality',
      'evaluator.quick_review',
      'evaluator.review_symbol',
      'tickets.triage',
    ])
    expect(prompts.find((p) => p.name === 'evaluator.quick_review')?.arguments).toEqual([
      { name: 'code', description: 'The code to review', required: true },
    ])
  })

  it('renders evaluator.quick_review with its argument as one user message', async () => {
    const client = await connect(open)
    const { messages } = await client.getPrompt({ name: 'evaluator.quick_review', arguments: { code: 'x := 1' } })
    expect(messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'text',
          text: 'Review this go code (frameworks: gin, gorm, gin-swagger) in one paragraph:\nx := 1',
        },
      },
    ])
  })

  it('reads an example shared variable as a resource', async () => {
    const client = await connect(open)
    const { resources } = await client.listResources()
    expect(resources).toContainEqual({
      uri: 'environ://vscode/frameworks',
      name: 'vscode.frameworks',
      mimeType: 'application/json',
    })
    const { contents } = await client.readResource({ uri: 'environ://vscode/frameworks' })
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual(['gin', 'gorm', 'gin-swagger'])
  })

  it('answers GET 405: no event stream, no session', async () => {
    const res = await fetch(`${open.url}/mcp`, { headers: { accept: 'text/event-stream' } })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('POST')
    await res.body?.cancel()
  })
})

describe('POST /mcp with API_TOKEN set', () => {
  it('is 401 without the bearer token, to a plain request and to the SDK client', async () => {
    const res = await fetch(`${guarded.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    })
    expect(res.status).toBe(401)
    await res.body?.cancel()
    const refused = await connect(guarded).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(refused).toMatchObject({ code: 401 })
  })

  it('lists the prompts with it', async () => {
    const client = await connect(guarded, { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } })
    const { prompts } = await client.listPrompts()
    expect(prompts.map((p) => p.name)).toContain('evaluator.quick_review')
  })
})
