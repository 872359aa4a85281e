// The example tool server `npm run dev` starts beside wrangler dev
// (scripts/dev.mjs), so that the example records' tools answer on a fresh
// clone: one Node HTTP server on a loopback port, whose URL is the dev
// Worker's TOOLS_BASE_URL, answering every relative URL under examples/tools/:
//   /codebase/refs/{symbol}, /translate/zh/en  REST (rest.ts)
//   /mcp                                       MCP, Streamable HTTP (mcp.ts)
//   /greet.v1.GreetService/Greet               gRPC: Connect, gRPC-Web and gRPC (grpc.ts)
// Answers are canned and deterministic (tests assert on them). Only for
// development: nothing the Worker deploys refers to it.
import { createServer } from 'node:http'
import type { ServerResponse } from 'node:http'
import { closeNow, listenOnLoopback } from '../ports'
import { GRPC_PREFIX, greeterHandler } from './grpc'
import { MCP_PATH, handleMcp } from './mcp'
import { restAnswer } from './rest'

export interface ExampleTools {
  /** `http://127.0.0.1:<port>`, no trailing slash: the TOOLS_BASE_URL of the example records. */
  url: string
  stop(): Promise<void>
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** Starts the server on a free loopback port. */
export async function startExampleTools(): Promise<ExampleTools> {
  const greeter = greeterHandler()
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://example-tools')
    if (url.pathname.startsWith(GRPC_PREFIX)) return greeter(req, res)
    if (url.pathname === MCP_PATH) {
      handleMcp(req, res).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error)
        if (res.headersSent) res.destroy()
        else sendJson(res, 500, { jsonrpc: '2.0', error: { code: -32603, message }, id: null })
      })
      return
    }
    // The REST tools are GETs: a body is not read.
    req.resume()
    const { status, body } = restAnswer(req.method ?? 'GET', url)
    sendJson(res, status, body)
  })
  const url = `http://127.0.0.1:${await listenOnLoopback(server)}`
  await warmUp(url)
  return {
    url,
    stop: () => closeNow(server),
  }
}

/**
 * Calls each kind of tool once, so that the first render's calls find the
 * server's code compiled: cold, the MCP SDK's first answer takes some
 * 200 ms, most of a call's TOOL_TIMEOUT_MS (300 by default) on a busy machine.
 */
async function warmUp(url: string): Promise<void> {
  const post = (path: string, body: unknown, accept = 'application/json') =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    }).then((res) => res.text())
  const call = { name: 'lookup_ticket', arguments: { id: 'SHOP-101' } }
  await Promise.all([
    post(
      MCP_PATH,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call },
      'application/json, text/event-stream',
    ),
    post(`${GRPC_PREFIX}Greet`, { name: 'warm-up' }),
    fetch(`${url}/codebase/refs/Parse`).then((res) => res.text()),
  ])
}
