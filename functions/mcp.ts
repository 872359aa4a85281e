import type { Handler } from 'hono'
import * as z from 'zod/mini'
import { version } from '../package.json'
import {
  API_ERRORS,
  ERROR_STATUS,
  HttpError,
  errorsOf,
  freshStoreOf,
  json,
  recordBody,
  Routes,
  defineRoute,
  described,
  once,
  settingsOf,
} from '../lib/http'
import type { AppEnv } from '../lib/http'
import { ServiceError } from '../lib/errors'
import { SUPPORTED_VERSIONS, serveMcp } from '../lib/mcp'
import { servingOptionsOf } from './rendering'
import { BODY_LIMITS, LabelQuery } from './shapes'

const JsonRpc = once(() =>
  described(z.catchall(z.object({ jsonrpc: z.literal('2.0') }), z.unknown()), {
    id: 'JsonRpcMessage',
    description: 'A JSON-RPC 2.0 message of the Model Context Protocol.',
  }),
)

const route = defineRoute('post', '/mcp', () => ({
  tags: ['mcp'],
  summary: 'The Model Context Protocol: the prompts, tools and shared variables for MCP clients',
  description:
    "Streamable HTTP, stateless: each POST carries a JSON-RPC message (or a batch of at most 32) and is answered with JSON, at most MCP_MAX_BYTES in all (requests past it are answered with a LIMIT_EXCEEDED error, not run); no session is kept, and GET and DELETE are 405. Methods: initialize, ping, prompts/list, prompts/get (rendered), tools/list, tools/call, resources/list, resources/templates/list, resources/read (environ://{path}). A service error is a JSON-RPC error whose data.code is the service's code. `Authorization: Bearer <API_TOKEN>` when API_TOKEN is set.",
  middleware: recordBody,
  request: {
    query: z.object({ label: LabelQuery() }),
    body: {
      content: {
        'application/json': {
          schema: z.union([JsonRpc(), z.array(JsonRpc())]),
          example: { jsonrpc: '2.0', id: 1, method: 'prompts/list' },
        },
      },
      description: BODY_LIMITS,
    },
  },
  responses: {
    200: json('The answers to the requests', z.unknown()),
    202: { description: 'Only notifications or responses were sent: nothing to answer' },
    ...errorsOf(...API_ERRORS, 'BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'),
  },
}))

/**
 * POST /mcp. The body is read and bounded as every JSON body is (a body
 * that is not JSON is the service's 400, before any JSON-RPC); a protocol
 * version header this server does not speak is 400, as the transport asks.
 */
export const mcp = new Routes().openapi(route, async (c) => {
  const asked = c.req.header('mcp-protocol-version')
  if (asked !== undefined && !SUPPORTED_VERSIONS.has(asked)) {
    throw new ServiceError(
      'BAD_REQUEST',
      `MCP-Protocol-Version() ${JSON.stringify(asked.slice(0, 32))} is not spoken here`,
    )
  }
  const settings = settingsOf(c)
  const context = {
    store: await freshStoreOf(c),
    options: servingOptionsOf(c),
    environMaxBytes: settings.environMaxBytes,
  }
  const answer = await serveMcp(c.req.valid('json'), context, {
    server: { name: 'ai-prompt-shell', version },
    clientFault: (code) => ERROR_STATUS[code] < 500,
    maxBytes: settings.mcpMaxBytes,
  })
  if (answer === undefined) return c.body(null, 202)
  // The answer is JSON text already, each message's serialised once as the budget counted it.
  return c.body(answer, 200, { 'content-type': 'application/json' })
})

/**
 * Every MCP client asks for an event stream (GET) once initialized: a stateless server has none and no
 * session to end (DELETE), and says so, as the transport expects; routine, so its log line is no warning.
 */
const refusal = (kept: string) => () => ({
  tags: ['mcp'],
  summary: `Always 405 (Allow: POST): a stateless MCP server keeps no ${kept}`,
  responses: errorsOf('UNAUTHORIZED', 'METHOD_NOT_ALLOWED'),
})

/** Registered once per route: the document finds each route by its own handler. */
const refused = (): Handler<AppEnv> => (c) => {
  c.set('expected', true)
  throw new HttpError(
    'METHOD_NOT_ALLOWED',
    `${c.req.method} is not allowed on /mcp: this server keeps no stream or session; POST`,
    { Allow: 'POST' },
  )
}

mcp
  .openapi(defineRoute('get', '/mcp', refusal('event stream')), refused())
  .openapi(defineRoute('delete', '/mcp', refusal('session')), refused())
