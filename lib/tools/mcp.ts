import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker-provider.js'
import { EgressError, TooLargeError, cancelBody, guardedFetch, readBody, shortReason, statusLine } from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { abortable } from '../abort'
import { ToolError } from './arguments'
import type { Params } from './arguments'

const CLIENT_INFO = { name: 'ai-prompt-shell', version: '0.1.0' }

/**
 * The MCP servers of one render: one connected client per server URL,
 * opened on first use and closed when the render ends. Calls go over
 * Streamable HTTP, through the same guarded fetch as REST tools (redirects
 * checked, answers cut at the byte limit); results are validated without
 * code generation (workerd forbids it), with @cfworker/json-schema.
 */
export class McpClients {
  readonly #clients = new Map<string, Promise<Client>>()

  /** `signal` ends every request of these clients: the render's end. */
  constructor(
    readonly signal: AbortSignal,
    readonly policy: EgressPolicy,
    readonly limit: ByteLimit,
  ) {}

  /** A tool's result: its structured content when the server gives one, otherwise its text. */
  async call(url: URL, tool: string, params: Params, signal: AbortSignal): Promise<unknown> {
    let result: Awaited<ReturnType<Client['callTool']>>
    try {
      // The handshake is part of the call: it waits no longer than the call's own timeout.
      const client = await abortable(this.#client(url), signal)
      result = await client.callTool({ name: tool, arguments: params }, undefined, { signal })
    } catch (e) {
      // The SDK reports its own timeout as an MCP error: what ended the call is the signal, not the server.
      throw signal.aborted ? signal.reason : told(e)
    }
    const text = Array.isArray(result.content)
      ? result.content
          .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
          .map((c) => c.text)
          .join('\n')
      : ''
    // The error text is meant for the caller: a short reason of it goes to the warning, none to the log.
    if (result.isError) throw new ToolError('answered an error', shortReason(text))
    return result.structuredContent ?? text
  }

  #client(url: URL): Promise<Client> {
    let client = this.#clients.get(url.href)
    if (!client) {
      client = (async () => {
        const c = new Client(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() })
        const transport = new StreamableHTTPClientTransport(url, { fetch: (input, init) => this.#fetch(input, init) })
        await c.connect(transport, { signal: this.signal })
        return c
      })()
      // A failed connection fails the calls that wait for it; it is not retried within a render.
      client.catch(() => {})
      this.#clients.set(url.href, client)
    }
    return client
  }

  /**
   * The transport's fetch. The answer to a POST (a call, or the handshake)
   * is read here, within the byte limit, so that an answer too big fails its
   * call at once and by name; the SDK then reads it from memory. An error
   * answer is told by its status line: the SDK would quote its body. The
   * SDK's other requests are refused without being sent: a GET would open the
   * server's event stream, which the SDK reads (and reconnects to) on its own,
   * unbounded, and a render has no use for it; to a 405 the SDK opens none.
   */
  async #fetch(input: string | URL, init: RequestInit | undefined): Promise<Response> {
    const method = init?.method ?? 'GET'
    if (method !== 'POST') return new Response(null, { status: 405 })
    const signal = init?.signal ? AbortSignal.any([init.signal, this.signal]) : this.signal
    const body = typeof init?.body === 'string' ? init.body : undefined
    const headers = new Headers(init?.headers)
    const response = await guardedFetch(new URL(input), { method, headers, body, signal }, this.policy)
    if (!response.ok) {
      await cancelBody(response)
      throw new ToolError(`answered ${statusLine(response)}`)
    }
    const bytes = await readBody(response, this.limit, signal)
    return new Response(response.status === 202 || bytes.byteLength === 0 ? null : bytes, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }

  /** Ends every request still in flight, and the clients; waits for nothing that could take long. */
  async close(): Promise<void> {
    const clients = await Promise.allSettled(this.#clients.values())
    await Promise.allSettled(clients.map((c) => (c.status === 'fulfilled' ? c.value.close() : undefined)))
  }
}

/**
 * A failure as the warning tells it. The SDK's own errors can quote what the
 * server sent (a JSON-RPC error's message, a body that did not parse): the
 * log gets their kind, the warning a short reason.
 */
function told(e: unknown): unknown {
  if (e instanceof ToolError || e instanceof EgressError || e instanceof TooLargeError) return e
  if (e instanceof DOMException) return e
  if (e instanceof McpError) {
    return new ToolError(`answered MCP error ${e.code}`, shortReason(e.message.replace(/^MCP error -?\d+: /, '')))
  }
  const name = e instanceof Error ? e.name : typeof e
  return new ToolError(`failed in the MCP client (${name})`, shortReason(e instanceof Error ? e.message : String(e)))
}
