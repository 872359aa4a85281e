import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker-provider.js'
import { ToolError } from './arguments'
import type { Params } from './arguments'

const CLIENT_INFO = { name: 'ai-prompt-shell', version: '0.1.0' }

/**
 * The MCP servers of one render: one connected client per server URL,
 * opened on first use and closed when the render ends. Calls go over
 * Streamable HTTP; results are validated without code generation
 * (workerd forbids it), with @cfworker/json-schema.
 */
export class McpClients {
  readonly #clients = new Map<string, Promise<Client>>()

  constructor(readonly signal: AbortSignal) {}

  /** A tool's result: its structured content when the server gives one, otherwise its text. */
  async call(url: URL, tool: string, params: Params, signal: AbortSignal): Promise<unknown> {
    const client = await this.#client(url)
    const result = await client.callTool({ name: tool, arguments: params }, undefined, { signal })
    const text = Array.isArray(result.content)
      ? result.content
          .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
          .map((c) => c.text)
          .join('\n')
      : ''
    if (result.isError) throw new ToolError('answered an error', text.slice(0, 200))
    return result.structuredContent ?? text
  }

  #client(url: URL): Promise<Client> {
    let client = this.#clients.get(url.href)
    if (!client) {
      client = (async () => {
        const c = new Client(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() })
        // Requests of this client end with the render.
        const transport = new StreamableHTTPClientTransport(url, {
          fetch: (input, init) => fetch(input, { ...init, signal: this.signal }),
        })
        await c.connect(transport, { signal: this.signal })
        return c
      })()
      // A failed connection fails the calls that wait for it; it is not retried within a render.
      client.catch(() => {})
      this.#clients.set(url.href, client)
    }
    return client
  }

  async close(): Promise<void> {
    const clients = await Promise.allSettled(this.#clients.values())
    await Promise.allSettled(clients.map((c) => (c.status === 'fulfilled' ? c.value.close() : undefined)))
  }
}
