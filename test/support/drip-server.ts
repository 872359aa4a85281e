// A server whose event streams never end an event: `data: ` and then `bytes`
// `x`s without a blank line, written in pieces of `piece` bytes (each its own
// chunk of the chunked encoding), then the end of the answer. An SSE reader
// that searches its whole buffer for a blank line at each piece does
// quadratic work on it (issue 27, row 5).
//
//   POST /mcp?bytes=N&piece=P                  an MCP server over Streamable HTTP: `initialize` is answered
//                                              with JSON, a notification 202, any other request (`tools/call`)
//                                              with the endless event
//   POST /v1/chat/completions?bytes=N&piece=P  an OpenAI-compatible provider: a stream's answer is the endless
//                                              event; without `"stream": true`, 400
//
// `bytes` defaults to 1,000,000 and `piece` to 16.
import { once } from 'node:events'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { closeNow, listenOnLoopback } from './ports'
import { messageOf, send } from './serving'

export interface DripServer {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  url: string
  stop(): Promise<void>
}

export async function startDripServer(): Promise<DripServer> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://drip-server')
    const bytes = Number(url.searchParams.get('bytes') ?? 1_000_000)
    const piece = Number(url.searchParams.get('piece') ?? 16)
    if (!(bytes >= 0 && piece >= 1)) return send(res, 400, { error: 'bytes must be >= 0 and piece >= 1' })
    const route = url.pathname === '/mcp' ? mcp : url.pathname === '/v1/chat/completions' ? completions : undefined
    if (req.method !== 'POST' || !route) return send(res, 404, { error: `no route ${req.method} ${url.pathname}` })
    readJson(req)
      .then((body) => route(body, res, () => void drip(res, bytes, piece).catch(() => res.destroy())))
      .catch((error: unknown) => send(res, 400, { error: messageOf(error) }))
  })
  const port = await listenOnLoopback(server)
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => closeNow(server),
  }
}

function mcp(body: Record<string, unknown>, res: ServerResponse, endless: () => void): void {
  if (body.id === undefined) return void res.writeHead(202).end()
  if (body.method !== 'initialize') return endless()
  const params = body.params as { protocolVersion?: string } | undefined
  send(res, 200, {
    jsonrpc: '2.0',
    id: body.id,
    result: {
      protocolVersion: params?.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: 'drip', version: '1' },
    },
  })
}

function completions(body: Record<string, unknown>, res: ServerResponse, endless: () => void): void {
  if (body.stream !== true) return send(res, 400, { error: { message: 'only streams drip', type: 'invalid_request' } })
  endless()
}

/**
 * `data: ` and `bytes` `x`s in pieces of `piece`, each written (and so sent) as a chunk of its own, as fast as the
 * reader takes them: a reader that stops reading, or goes away, holds no more than the socket's buffer here.
 */
async function drip(res: ServerResponse, bytes: number, piece: number): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'text/event-stream' })
  res.write('data: ')
  const chunk = 'x'.repeat(piece)
  const gone = new Promise<void>((resolve) => res.once('close', resolve))
  for (let sent = 0; sent < bytes && !res.destroyed; sent += piece) {
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), gone])
  }
  res.end()
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>
}
