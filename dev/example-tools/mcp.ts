// The MCP example tool, tickets_lookup: an issue tracker's `lookup_ticket`,
// served by the MCP SDK's own server over Streamable HTTP. Stateless, as in
// the SDK's simpleStatelessStreamableHttp example: every POST gets a server
// and transport of its own, answering in plain JSON.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

/** The endpoint, as examples/tools/tickets/lookup.json names it. */
export const MCP_PATH = '/mcp'

export interface Ticket {
  id: string
  title: string
  status: 'open' | 'in_progress' | 'closed'
  reporter: string
  /** null while nobody has taken it. */
  assignee: string | null
  labels: string[]
  /** As the reporter wrote it (the shop's support team writes in Chinese): translate_zh_en makes it English. */
  description: string
}

/** The tracker's tickets. */
export const TICKETS: readonly Ticket[] = [
  {
    id: 'SHOP-101',
    title: 'Stock not deducted for paid orders',
    status: 'open',
    reporter: 'Li Wei',
    assignee: null,
    labels: ['bug', 'checkout'],
    description: '下单后库存没有扣减，重复支付时会创建两个订单。',
  },
  {
    id: 'SHOP-102',
    title: 'Order list is slow for large accounts',
    status: 'in_progress',
    reporter: 'Zhang Min',
    assignee: 'Ada',
    labels: ['performance'],
    description: '用户订单很多时获取订单列表需要五秒。',
  },
  {
    id: 'SHOP-103',
    title: 'Checkout answers 500 when the user is logged out',
    status: 'closed',
    reporter: 'Chen Jie',
    assignee: 'Grace',
    labels: ['bug', 'auth'],
    description: '用户未登录时支付失败：参数错误。',
  },
]

function server(): McpServer {
  const mcp = new McpServer({ name: 'ai-prompt-shell-example-tickets', version: '1.0.0' })
  mcp.registerTool(
    'lookup_ticket',
    {
      description: 'Looks up a ticket of the shop-api tracker by its id',
      inputSchema: { id: z.string().max(64).describe('The ticket id, such as SHOP-101') },
      outputSchema: {
        id: z.string(),
        title: z.string(),
        status: z.enum(['open', 'in_progress', 'closed']),
        reporter: z.string(),
        assignee: z.string().nullable(),
        labels: z.array(z.string()),
        description: z.string(),
      },
    },
    async ({ id }) => {
      const ticket = TICKETS.find((t) => t.id === id.trim().toUpperCase())
      if (!ticket) {
        const known = TICKETS.map((t) => t.id).join(', ')
        return { isError: true, content: [{ type: 'text', text: `no ticket ${id} (the tracker has ${known})` }] }
      }
      const structuredContent = { ...ticket }
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent }
    },
  )
  return mcp
}

/** Serves one request to MCP_PATH. */
export async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST') {
    // Stateless: no standalone event stream (GET), no session to end (DELETE).
    res.writeHead(405, { 'Content-Type': 'application/json', Allow: 'POST' })
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }))
    return
  }
  const mcp = server()
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  res.once('close', () => {
    void transport.close()
    void mcp.close()
  })
  await mcp.connect(transport)
  await transport.handleRequest(req, res)
}
