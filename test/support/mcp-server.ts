// A real MCP server (the SDK's own server side) over Streamable HTTP. At /mcp it
// is stateless: every POST gets a server and transport of its own, as in the
// SDK's simpleStatelessStreamableHttp example, and answers with an event stream.
// At /mcp-session it keeps sessions (a request without the session id the
// handshake gave is refused) and answers with plain JSON, and it counts the
// JSON-RPC methods it receives (a session's notifications/cancelled reaches the
// call it cancels: a stateless server could not route it); /mcp-session-sse
// is the same, answering with event streams. At /mcp-rpc-error
// every request is answered 200 with a JSON-RPC error (RPC_ERROR_MESSAGE). At
// /mcp-open every request is answered with an event stream that stays open
// after its reply (a progress notification first): `tools/call` echoes its
// `text` argument as `echo: <text>`.
//
// Tools:
//   lookup_ref { symbol }  structuredContent { refs: [...] } (with an outputSchema) plus the same as text
//   echo_text { text }     text content only: `echo: <text>`
//   slow { ms }            waits ms, then text `slept`
//   boom {}                isError: true with a text message
//   big { bytes }          text content of that many `x`s
//   leaky {}               isError: true with a long first line holding control characters, and SECRET on the next
//   hold {}                never answers: waits for its request to be cancelled, and records the cancellation
//   chatter { bytes }      as hold, after a log message (notifications/message) of that many bytes on its stream
//
// Calls are counted per tool name and per group, the `?group=NAME` query
// parameter of the MCP URL (default `default`): `GET /__stats?group=NAME`
// answers `McpServerStats`, `POST /__reset?group=NAME` zeroes the group,
// `GET /__cancelled?group=NAME` answers the group's cancellations once there is one.
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { listenOnLoopback } from './ports'
import { SECRET } from './tool-server'
import { z } from 'zod'
import { messageOf, send, sleep } from './serving'

export interface McpTestServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string
  stop(): Promise<void>
}

export interface McpServerStats {
  /** Calls that reached each tool's handler since the last reset; tools never called are absent. */
  calls: Record<string, number>
  /** Requests to /mcp by HTTP method since the last reset (a client opening the standalone event stream GETs). */
  methods: Record<string, number>
  /** JSON-RPC messages received at /mcp-session by method (`initialize`, `notifications/cancelled`, ...). */
  rpc: Record<string, number>
  /** Calls of `hold` and `chatter` whose signal aborted: their request id, and the reason the cancellation gave. */
  cancelled: Cancellation[]
}

export interface Cancellation {
  requestId: string | number
  reason: string
}

export const MCP_TOOLS = ['lookup_ref', 'echo_text', 'slow', 'boom', 'big', 'leaky', 'hold', 'chatter'] as const
export const BOOM_MESSAGE = 'boom: the tool failed on purpose'
export const RPC_ERROR_MESSAGE = 'Internal error: the server failed on purpose'
/** leaky's first line: a bell and an escape among 120 characters. */
export const LEAKY_FIRST_LINE = `quota exceeded\u0007 for this key\u001b[31m; ${'retry later '.repeat(8)}`
const DEFAULT_GROUP = 'default'

export function lookupRefs(symbol: string): string[] {
  return [`${symbol} in main.go:12`, `${symbol} in util.go:3`]
}

export async function startMcpServer(): Promise<McpTestServer> {
  const groups = new Map<string, McpServerStats>()
  const statsOf = (group: string): McpServerStats => {
    let stats = groups.get(group)
    if (!stats) groups.set(group, (stats = { calls: {}, methods: {}, rpc: {}, cancelled: [] }))
    return stats
  }
  /** Who waits for a group's first cancellation (GET /__cancelled). */
  const waiting = new Map<string, (() => void)[]>()
  const recordCancellation = (group: string, cancellation: Cancellation) => {
    statsOf(group).cancelled.push(cancellation)
    for (const wake of waiting.get(group) ?? []) wake()
    waiting.delete(group)
  }
  const count = (group: string, tool: string) => {
    const { calls } = statsOf(group)
    calls[tool] = (calls[tool] ?? 0) + 1
  }
  /** Aborted on stop, so slow calls do not outlive the server. */
  const stopping = new AbortController()

  const buildServer = (group: string): McpServer => {
    const server = new McpServer({ name: 'test-mcp-server', version: '1.0.0' }, { capabilities: { logging: {} } })
    /** Answers only when the request's signal aborts (its cancellation, recorded) or the server stops. */
    const held = async (signal: AbortSignal, requestId: string | number) => {
      await new Promise((resolve) => AbortSignal.any([signal, stopping.signal]).addEventListener('abort', resolve))
      if (signal.aborted) recordCancellation(group, { requestId, reason: String(signal.reason) })
      return { content: [{ type: 'text' as const, text: 'held' }] }
    }
    server.registerTool(
      'lookup_ref',
      {
        description: 'Finds references to a symbol',
        inputSchema: { symbol: z.string() },
        outputSchema: { refs: z.array(z.string()) },
      },
      async ({ symbol }) => {
        count(group, 'lookup_ref')
        const structuredContent = { refs: lookupRefs(symbol) }
        return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent }
      },
    )
    server.registerTool(
      'echo_text',
      { description: 'Echoes its text', inputSchema: { text: z.string() } },
      async ({ text }) => {
        count(group, 'echo_text')
        return { content: [{ type: 'text', text: `echo: ${text}` }] }
      },
    )
    server.registerTool(
      'slow',
      { description: 'Waits ms milliseconds, then answers', inputSchema: { ms: z.number() } },
      async ({ ms }, extra) => {
        count(group, 'slow')
        await sleep(ms, AbortSignal.any([extra.signal, stopping.signal]))
        return { content: [{ type: 'text', text: 'slept' }] }
      },
    )
    server.registerTool('boom', { description: 'Always fails' }, async () => {
      count(group, 'boom')
      return { isError: true, content: [{ type: 'text', text: BOOM_MESSAGE }] }
    })
    server.registerTool(
      'big',
      { description: 'Answers that many bytes of text', inputSchema: { bytes: z.number() } },
      async ({ bytes }) => {
        count(group, 'big')
        return { content: [{ type: 'text', text: 'x'.repeat(bytes) }] }
      },
    )
    server.registerTool('leaky', { description: 'Fails, saying too much' }, async () => {
      count(group, 'leaky')
      return { isError: true, content: [{ type: 'text', text: `${LEAKY_FIRST_LINE}\n${SECRET}` }] }
    })
    server.registerTool('hold', { description: 'Answers only by being cancelled' }, async (extra) => {
      count(group, 'hold')
      return held(extra.signal, extra.requestId)
    })
    server.registerTool(
      'chatter',
      { description: 'Logs that many bytes, then answers only by being cancelled', inputSchema: { bytes: z.number() } },
      async ({ bytes }, extra) => {
        count(group, 'chatter')
        await extra.sendNotification({
          method: 'notifications/message',
          params: { level: 'info', data: 'x'.repeat(bytes) },
        })
        return held(extra.signal, extra.requestId)
      },
    )
    return server
  }

  const mcp = async (req: IncomingMessage, res: ServerResponse, group: string): Promise<void> => {
    const { methods } = statsOf(group)
    const method = req.method ?? 'GET'
    methods[method] = (methods[method] ?? 0) + 1
    if (method !== 'POST') {
      // Stateless: no standalone SSE stream (GET) and no session to end (DELETE).
      res.writeHead(405, { 'Content-Type': 'application/json', Allow: 'POST' })
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }))
      return
    }
    const server = buildServer(group)
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.once('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(req, res)
  }

  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const mcpSession = async (req: IncomingMessage, res: ServerResponse, group: string, json: boolean) => {
    const { methods, rpc } = statsOf(group)
    methods[req.method ?? 'GET'] = (methods[req.method ?? 'GET'] ?? 0) + 1
    const body = req.method === 'POST' ? await jsonBody(req) : undefined
    for (const message of [body].flat() as { method?: string }[]) {
      if (typeof message?.method === 'string') rpc[message.method] = (rpc[message.method] ?? 0) + 1
    }
    const id = req.headers['mcp-session-id']
    let transport = typeof id === 'string' ? sessions.get(id) : undefined
    if (!transport) {
      // Without a known session id, only an initialize request is accepted (the SDK answers others 400).
      const opened = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, opened),
      })
      await buildServer(group).connect(opened)
      transport = opened
    }
    await transport.handleRequest(req, res, body)
  }

  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://mcp-server')
    const group = url.searchParams.get('group') ?? DEFAULT_GROUP
    let handled: Promise<void>
    if (url.pathname === '/mcp') handled = mcp(req, res, group)
    else if (url.pathname === '/mcp-session') handled = mcpSession(req, res, group, true)
    else if (url.pathname === '/mcp-session-sse') handled = mcpSession(req, res, group, false)
    else if (url.pathname === '/mcp-rpc-error') handled = rpcError(req, res)
    else if (url.pathname === '/mcp-open') handled = openStream(req, res)
    else if (url.pathname === '/__stats' && req.method === 'GET') {
      const { calls, methods, rpc, cancelled } = statsOf(group)
      handled = Promise.resolve(
        send(res, 200, { calls: { ...calls }, methods: { ...methods }, rpc: { ...rpc }, cancelled }),
      )
    } else if (url.pathname === '/__cancelled' && req.method === 'GET') {
      const answer = () => send(res, 200, statsOf(group).cancelled)
      if (statsOf(group).cancelled.length > 0) answer()
      else waiting.set(group, [...(waiting.get(group) ?? []), answer])
      handled = Promise.resolve()
    } else if (url.pathname === '/__reset' && req.method === 'POST') {
      groups.delete(group)
      handled = Promise.resolve(send(res, 200, { ok: true }))
    } else handled = Promise.resolve(send(res, 404, { error: `no route ${req.method} ${url.pathname}` }))
    handled.catch((error: unknown) => {
      if (!res.headersSent) {
        send(res, 500, { jsonrpc: '2.0', error: { code: -32603, message: messageOf(error) }, id: null })
      } else res.destroy()
    })
  })
  const port = await listenOnLoopback(http)

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      stopping.abort()
      await Promise.all([...sessions.values()].map((t) => t.close()))
      const closed = new Promise<void>((resolve) => http.close(() => resolve()))
      http.closeAllConnections()
      await closed
    },
  }
}

/** A JSON-RPC error in answer to the request's own id. */
async function rpcError(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { id } = (await jsonBody(req)) as { id?: unknown }
  send(res, 200, { jsonrpc: '2.0', id: id ?? null, error: { code: -32603, message: RPC_ERROR_MESSAGE } })
}

/**
 * Replies on an event stream and leaves it open, as the spec allows (the
 * server SHOULD close it): a client waiting for the stream's end never
 * sees its reply. stop() closes the connections.
 */
async function openStream(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const message = (await jsonBody(req)) as {
    id?: number
    method: string
    params?: { protocolVersion?: string; arguments?: { text?: string } }
  }
  if (message.id === undefined) {
    res.writeHead(202).end()
    return
  }
  const result =
    message.method === 'initialize'
      ? {
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'open-stream', version: '1' },
        }
      : { content: [{ type: 'text', text: `echo: ${message.params?.arguments?.text ?? ''}` }] }
  res.writeHead(200, { 'Content-Type': 'text/event-stream' })
  const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1, progressToken: 1 } }
  res.write(`event: message\ndata: ${JSON.stringify(progress)}\n\n`)
  // The reply's event in two writes, its blank line apart: the client must wait for the event's end.
  res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`)
  res.write('\n')
}

/** A request's body, parsed as JSON. */
async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}
