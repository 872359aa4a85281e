// The MCP server's framing and argument typing, without a store: the methods
// that read the catalogue are tested through the Worker
// (test/integration/mcp-endpoint.test.ts).
import { describe, expect, it } from 'vitest'
import { normalizeParameters } from '../../lib/catalog'
import { MAX_BATCH, serveMcp } from '../../lib/mcp'
import type { McpContext } from '../../lib/mcp'
import { promptArgs } from '../../lib/mcp/arguments'
import { RpcError } from '../../lib/mcp/rpc'

const SERVER = { name: 'ai-prompt-shell', version: '9.9.9' }
/** No method these tests call reads it. */
const context = {} as McpContext
const serving = { server: SERVER, clientFault: (code: string) => code !== 'RENDER_TIMEOUT', maxBytes: 1 << 20 }
/** The answer as JSON, parsed. */
const parsed = (text: string | undefined): unknown => (text === undefined ? undefined : JSON.parse(text))
const serve = async (body: unknown) => parsed(await serveMcp(body, context, serving))

describe('the framing', () => {
  it('negotiates the protocol version: the client’s when spoken here, else the latest', async () => {
    const asked = await serve({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26' },
    })
    expect(asked).toMatchObject({ id: 1, result: { protocolVersion: '2025-03-26', serverInfo: SERVER } })
    const unknown = await serve({ jsonrpc: '2.0', id: 'a', method: 'initialize', params: { protocolVersion: '1999' } })
    expect(unknown).toMatchObject({ id: 'a', result: { protocolVersion: '2025-11-25' } })
  })

  it('answers requests, and nothing to notifications or to responses', async () => {
    expect(await serve({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined()
    expect(await serve({ jsonrpc: '2.0', id: 7, result: {} })).toBeUndefined()
    const batch = await serve([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'nope' },
    ])
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'method "nope" is not served' } },
    ])
  })

  it('refuses what is not a JSON-RPC request, with its id when it has one', async () => {
    expect(await serve({ id: 3, method: 'ping' })).toMatchObject({ id: 3, error: { code: -32600 } })
    expect(await serve({ jsonrpc: '2.0', id: 1.5, method: 'ping' })).toMatchObject({
      id: null,
      error: { code: -32600 },
    })
    expect(await serve({ jsonrpc: '2.0', id: 4, method: 'ping', params: [] })).toMatchObject({
      id: 4,
      error: { code: -32602 },
    })
    expect(await serve({ jsonrpc: '2.0', id: 5, method: 'toString' })).toMatchObject({ error: { code: -32601 } })
  })

  it('bounds a batch', async () => {
    expect(await serve([])).toMatchObject({ id: null, error: { code: -32600 } })
    const many = Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))
    expect(await serve(many)).toMatchObject({ error: { code: -32600, message: expect.stringContaining('32') } })
    expect(await serve(many.slice(0, MAX_BATCH))).toHaveLength(MAX_BATCH)
  })

  it('answers a bug as an internal error that says nothing more', async () => {
    // A store that is not one: reading it throws a TypeError, which is no service error.
    const answer = await serve({ jsonrpc: '2.0', id: 1, method: 'prompts/list' })
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'internal error', data: { code: 'INTERNAL' } },
    })
  })
})

describe('prompt arguments', () => {
  const schema = normalizeParameters({
    n: { type: 'integer' },
    x: { type: 'number' },
    flag: { type: 'boolean' },
    tags: { type: 'array' },
    opts: { type: 'object' },
    name: { type: 'string' },
    free: {},
  })

  it('are typed by their declared parameters', () => {
    expect(
      promptArgs(schema, {
        n: '-3',
        x: '2.5e1',
        flag: 'false',
        tags: '["a"]',
        opts: '{"k":1}',
        name: '42',
        free: 'true',
        undeclared: '7',
      }),
    ).toEqual({ n: -3, x: 25, flag: false, tags: ['a'], opts: { k: 1 }, name: '42', free: 'true', undeclared: '7' })
  })

  it.each([
    ['n', '1.5', 'argument \'n\' must be an integer, got "1.5"'],
    ['n', '99999999999999999999', "argument 'n' must be an integer"],
    ['x', ' ', "argument 'x' must be a number"],
    ['flag', 'yes', "argument 'flag' must be true or false"],
    ['tags', '{"a":1}', "argument 'tags' must be a JSON array"],
    ['opts', 'not json', "argument 'opts' must be a JSON object"],
    ['tags', `${'['.repeat(200)}${']'.repeat(200)}`, "argument 'tags' is nested deeper than 100 levels"],
  ])('refuses %s = %j, naming it', (name, value, message) => {
    let error: unknown
    try {
      promptArgs(schema, { [name]: value })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(RpcError)
    expect((error as RpcError).code).toBe(-32602)
    expect((error as RpcError).message).toContain(message)
    expect((error as RpcError).data).toEqual({ code: 'INVALID_ARGS', argument: name })
  })

  it('must be strings, as MCP sends them', () => {
    expect(() => promptArgs(schema, { n: 3 })).toThrow("argument 'n' must be a string")
  })
})
