// POST /mcp, the Worker's own MCP server, driven by the MCP SDK's own client
// (Client + StreamableHTTPClientTransport) inside workerd, against a real
// Redis and the real REST and MCP tool servers. A few protocol-level checks
// (status codes, headers, notifications) use plain requests.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker-provider.js'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Env } from '../../lib/env'
import { EMBEDDED_RECORDS } from '../../lib/store/embedded-records.generated'
import { call, fetchWorker, freshRedis, logged, mcpServer, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { lookupRefs } from '../support/mcp-server'
import { PLAIN_ANSWER } from '../support/tool-server'
import { mcpTool, restTool } from '../support/records'

const tools = toolServer()
const mcp = mcpServer()
let db: TestRedis
/** The Worker's environment: the test's database, and room for tools to answer. */
let env: Env

/** Every parameter type a prompt argument converts to, and one declared without a type. */
const TYPED_PARAMETERS = {
  type: 'object',
  properties: {
    n: { type: 'integer', description: 'how many' },
    flag: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    ratio: { type: 'number' },
    opts: { type: 'object' },
    note: { description: 'free text' },
  },
  required: ['n'],
}

/** A REST tool's answer is an echo of the request; this is its shape, as its `returns` says. */
const ECHO_RETURNS = {
  type: 'object',
  properties: { method: { type: 'string' }, path: { type: 'string' }, query: { type: 'object' } },
  required: ['method', 'path', 'query'],
}

beforeAll(async () => {
  db = await freshRedis()
  env = { ...db.env, RENDER_TIMEOUT_MS: '5000', TOOL_TIMEOUT_MS: '2000' }
  const records: Record<string, unknown> = Object.fromEntries(EMBEDDED_RECORDS)
  Object.assign(records, {
    // Prompts.
    'shenma:templates:typed:show': {
      description: 'Shows its typed args',
      prompt: '{{toJson .args}}',
      parameters: TYPED_PARAMETERS,
    },
    // The list and map shapes of parameters: types by their aliases, `required` on the parameter.
    'shenma:templates:typed:listed': {
      prompt: '{{toJson .args}}',
      parameters: [
        { name: 'count', type: 'int', required: true },
        { name: 'on', type: 'bool' },
      ],
    },
    'shenma:templates:typed:mapped': {
      prompt: '{{toJson .args}}',
      parameters: { count: { type: 'integer', required: true }, items: { type: 'array' } },
    },
    'shenma:templates:tooly:both': {
      prompt: '{{(mcpt_echo .args.q).query.q}}|{{range (mcpt_refs .args.q).refs}}{{.}};{{end}}',
      parameters: { q: { type: 'string', required: true } },
    },
    'shenma:templates:tooly:warn': { prompt: 'A{{mcpt_fail "x"}}B' },
    'shenma:templates:tooly:forever': { prompt: 'A{{mcpt_hang_render "x"}}B' },
    'shenma:templates:errs:missing': { prompt: 'A\n{{.vscode.nope}}' },
    'shenma:templates:errs:missing_key': { prompt: 'A\n{{range $k, $v := .codebase}}{{$v.nope}}{{end}}' },
    'shenma:templates:errs:syntax': { prompt: 'line one\n{{.a' },
    'shenma:templates:errs:exec': { prompt: '{{index .vscode.rules 10}}' },
    // Tools.
    'shenma:tools:mcpt:echo': restTool('mcpt', 'echo', `${tools.url}/tools/echo?group=mcp-endpoint`, {
      parameters: { q: { type: 'string' } },
    }),
    'shenma:tools:mcpt:typed': {
      ...restTool('mcpt', 'typed', `${tools.url}/tools/typed?group=mcp-typed`, {
        parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      }),
      returns: ECHO_RETURNS,
    },
    'shenma:tools:mcpt:listy': {
      ...restTool('mcpt', 'listy', `${tools.url}/tools/listy`),
      returns: { type: 'array', items: { type: 'string' } },
    },
    'shenma:tools:mcpt:text': restTool('mcpt', 'text', `${tools.url}/text/tools/t`),
    'shenma:tools:mcpt:fail': restTool('mcpt', 'fail', `${tools.url}/status/500/tools/f?group=mcp-fail`),
    'shenma:tools:mcpt:hang': restTool('mcpt', 'hang', `${tools.url}/hang/tools/h?group=mcp-hang`),
    'shenma:tools:mcpt:hang_render': restTool('mcpt', 'hang_render', `${tools.url}/hang/tools/h?group=mcp-forever`),
    'shenma:tools:mcpt:refs': mcpTool('mcpt', 'refs', `${mcp.url}?group=mcp-endpoint`, {
      tool: 'lookup_ref',
      parameters: { type: 'object', properties: { symbol: { type: 'string' } }, required: ['symbol'] },
    }),
    'shenma:tools:mcpt:boom': mcpTool('mcpt', 'boom', `${mcp.url}?group=mcp-boom`),
    // Shared variables, some nested.
    'shenma:environs:deep:a:b': 1,
    'shenma:environs:deep:a:c': { x: [1, 2] },
    'shenma:environs:deep:top': 'top',
    // A label over the base.
    'shenma:templates:lab:greet': { prompt: 'base {{.lab.color}}' },
    'shenma:environs:lab:color': 'red',
    'shenma:labels:feat:templates:lab:greet': { prompt: 'feat {{.lab.color}}' },
    'shenma:labels:feat:templates:lab:only': { prompt: 'only in feat' },
    'shenma:labels:feat:environs:lab:color': 'blue',
    'shenma:labels:feat:tools:mcpt:labelled': restTool('mcpt', 'labelled', `${tools.url}/tools/labelled`),
  })
  await db.redis.mset(records)
})
afterAll(() => db.release())

const clients: Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
})

/** The SDK's client, connected to the Worker's /mcp (with `query`) in `over`'s environment. */
async function connect(over: Env = {}, query = '', requestInit?: RequestInit): Promise<Client> {
  const workerEnv = { ...env, ...over }
  const client = new Client(
    { name: 'mcp-endpoint-test', version: '1.0.0' },
    // Ajv, the default, compiles with eval, which workerd forbids.
    { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  )
  const transport = new StreamableHTTPClientTransport(new URL(`http://shell.test/mcp${query}`), {
    fetch: (url, init) => {
      const u = new URL(url)
      return fetchWorker(workerEnv, u.pathname + u.search, init)
    },
    requestInit,
  })
  clients.push(client)
  await client.connect(transport)
  return client
}

/** The error `promise` rejects with, which must be the SDK's McpError (a JSON-RPC error answer). */
async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    (value) => new Error(`expected a JSON-RPC error, got ${JSON.stringify(value)}`),
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(McpError)
  return error as McpError
}

/** One plain POST to /mcp with `body` as JSON. */
function post(
  body: unknown,
  { query = '', headers = {}, over = {} }: { query?: string; headers?: Record<string, string>; over?: Env } = {},
) {
  return fetchWorker({ ...env, ...over }, `/mcp${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  })
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'plain', version: '0' } },
}

const textOf = (content: unknown): string => {
  const [first] = content as { type: string; text: string }[]
  expect(first?.type).toBe('text')
  return first?.text as string
}

describe('the transport', () => {
  it('answers initialize with JSON and no session id, and names the server and its capabilities', async () => {
    const res = await post(INITIALIZE)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    const body = (await res.json()) as { id: number; result: Record<string, unknown> }
    expect(body.id).toBe(1)
    expect(body.result).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'ai-prompt-shell' },
      capabilities: { prompts: expect.any(Object), tools: expect.any(Object), resources: expect.any(Object) },
    })
  })

  it('answers a notification 202 with no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(res.status).toBe(202)
    expect(await res.text()).toBe('')
  })

  it.each(['GET', 'DELETE'])(
    'answers %s 405, allowing POST, in an info log line: clients send it routinely',
    async (method) => {
      const { result: res, lines } = await logged(() =>
        fetchWorker(env, '/mcp', { method, headers: { accept: 'text/event-stream' } }),
      )
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
      await res.body?.cancel()
      expect(lines).toEqual([expect.objectContaining({ level: 'info', msg: 'request', status: 405 })])
    },
  )

  it('answers a method it does not serve with -32601', async () => {
    const res = await post({ jsonrpc: '2.0', id: 'x', method: 'sampling/nothing', params: {} })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { id: string; error: { code: number } }
    expect(body).toMatchObject({ id: 'x', error: { code: -32601 } })
  })

  it('serves the SDK client, which pings it', async () => {
    const client = await connect()
    expect(client.getServerVersion()).toMatchObject({ name: 'ai-prompt-shell' })
    expect(client.getServerCapabilities()).toMatchObject({ prompts: {}, tools: {}, resources: {} })
    expect(await client.ping()).toEqual({})
  })
})

describe('prompts', () => {
  it('lists every prompt: the examples and the stored ones, with their arguments and which are required', async () => {
    const client = await connect()
    const { prompts } = await client.listPrompts()
    const byName = new Map(prompts.map((p) => [p.name, p]))
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining(['evaluator.evaluate_quality', 'evaluator.quick_review', 'typed.show', 'tooly.both']),
    )
    // The base's prompts only: no label asked for.
    expect(byName.has('lab.only')).toBe(false)
    expect(byName.get('evaluator.quick_review')).toEqual({
      name: 'evaluator.quick_review',
      description: "A one-paragraph review of a code snippet, in the project's language and frameworks",
      arguments: [{ name: 'code', description: 'The code to review', required: true }],
    })
    expect(byName.get('evaluator.evaluate_quality')).toMatchObject({
      arguments: [{ name: 'repo', description: 'Repository URL', required: false }],
    })
    expect(byName.get('typed.show')).toEqual({
      name: 'typed.show',
      description: 'Shows its typed args',
      arguments: [
        { name: 'n', description: 'how many', required: true },
        { name: 'flag', required: false },
        { name: 'tags', required: false },
        { name: 'ratio', required: false },
        { name: 'opts', required: false },
        { name: 'note', description: 'free text', required: false },
      ],
    })
  })

  it('renders a prompt with its arguments as one user message', async () => {
    const client = await connect()
    const result = await client.getPrompt({ name: 'evaluator.quick_review', arguments: { code: 'x := 1' } })
    expect(result.messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'text',
          text: 'Review this go code (frameworks: gin, gorm, gin-swagger) in one paragraph:\nx := 1',
        },
      },
    ])
    expect(result.description).toBe(
      "A one-paragraph review of a code snippet, in the project's language and frameworks",
    )
    expect(result._meta).toBeUndefined()
  })

  it('converts each string argument to its parameter’s declared type', async () => {
    const client = await connect()
    const result = await client.getPrompt({
      name: 'typed.show',
      arguments: { n: '-3', flag: 'false', tags: '["a","b"]', ratio: '2.5', opts: '{"k":{"deep":true}}', note: '42' },
    })
    expect(result.messages).toHaveLength(1)
    expect(result.messages[0]?.role).toBe('user')
    expect(JSON.parse(textOf([result.messages[0]?.content]))).toEqual({
      n: -3,
      flag: false,
      tags: ['a', 'b'],
      ratio: 2.5,
      opts: { k: { deep: true } },
      // Declared without a type: the string as given.
      note: '42',
    })
  })

  it('types the arguments of parameters in the list and map shapes too, and says which are required', async () => {
    const client = await connect()
    const { prompts } = await client.listPrompts()
    expect(prompts.filter((p) => p.name === 'typed.listed' || p.name === 'typed.mapped')).toEqual([
      {
        name: 'typed.listed',
        arguments: [
          { name: 'count', required: true },
          { name: 'on', required: false },
        ],
      },
      {
        name: 'typed.mapped',
        arguments: [
          { name: 'count', required: true },
          { name: 'items', required: false },
        ],
      },
    ])
    const listed = await client.getPrompt({ name: 'typed.listed', arguments: { count: '7', on: 'true' } })
    expect(JSON.parse(textOf([listed.messages[0]?.content]))).toEqual({ count: 7, on: true })
    const mapped = await client.getPrompt({ name: 'typed.mapped', arguments: { count: '0', items: '[1,"a"]' } })
    expect(JSON.parse(textOf([mapped.messages[0]?.content]))).toEqual({ count: 0, items: [1, 'a'] })
    const bad = await rpcError(client.getPrompt({ name: 'typed.listed', arguments: { count: 'seven' } }))
    expect({ code: bad.code, data: bad.data }).toEqual({
      code: -32602,
      data: { code: 'INVALID_ARGS', argument: 'count' },
    })
  })

  it('sends a system message as a user message, its text unchanged, as the REST render renders it', async () => {
    const client = await connect()
    const result = await client.getPrompt({ name: 'evaluator.evaluate_quality', arguments: {} })
    const rest = await call(env, 'POST', '/api/prompts/evaluator.evaluate_quality/render', { args: {} })
    expect(rest.status).toBe(200)
    const rendered = rest.body.rendered_prompt as { role: string; content: string }[]
    expect(rendered.map((m) => m.role)).toEqual(['system', 'user'])
    expect(result.messages).toEqual(rendered.map((m) => ({ role: 'user', content: { type: 'text', text: m.content } })))
    expect(textOf([result.messages[0]?.content])).toBe(
      'You are a code review assistant who can evaluate the quality of the project.',
    )
    expect(result.description).toBe(
      'Evaluates the quality of project code and provides an assessment report across various quality dimensions',
    )
  })

  it('calls REST and MCP tools while rendering', async () => {
    await tools.reset('mcp-endpoint')
    await mcp.reset('mcp-endpoint')
    const client = await connect()
    const result = await client.getPrompt({ name: 'tooly.both', arguments: { q: 'Run' } })
    expect(result.messages).toEqual([
      { role: 'user', content: { type: 'text', text: `Run|${lookupRefs('Run').join(';')};` } },
    ])
    expect(result._meta).toBeUndefined()
    expect((await tools.stats('mcp-endpoint')).calls).toBe(1)
    expect(await mcp.calls('mcp-endpoint')).toEqual({ lookup_ref: 1 })
  })

  it("puts a failing tool's warning in _meta, and renders the rest", async () => {
    const client = await connect()
    const result = await client.getPrompt({ name: 'tooly.warn' })
    expect(result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'AB' } }])
    expect(result._meta).toEqual({
      warnings: [{ code: 'TOOL_FAILED', tool: 'mcpt_fail', message: expect.stringMatching(/^answered HTTP 500/) }],
    })
  })

  describe('bad arguments are InvalidParams naming the argument', () => {
    it.each([
      ['n', 'three', /integer/],
      ['n', '1.5', /integer/],
      ['n', '', /integer/],
      ['flag', 'yes', /true or false/],
      ['flag', 'True', /true or false/],
      ['tags', '[1,', /JSON array/],
      ['tags', '{"a":1}', /JSON array/],
      ['opts', '[1]', /JSON object/],
      ['ratio', 'abc', /number/],
      ['ratio', 'Infinity', /number/],
      // Not decimals.
      ['ratio', '0x10', /number/],
      ['ratio', '0b1', /number/],
      ['ratio', '0o7', /number/],
      ['ratio', ' 2.5', /number/],
    ])('%s = %j', async (name, value, problem) => {
      const client = await connect()
      const args = { n: '1', [name]: value }
      const error = await rpcError(client.getPrompt({ name: 'typed.show', arguments: args }))
      expect(error.code).toBe(-32602)
      expect(error.message).toContain(`'${name}'`)
      expect(error.message).toMatch(problem)
      expect(error.data).toMatchObject({ code: 'INVALID_ARGS', argument: name })
    })

    it('a missing required argument', async () => {
      const client = await connect()
      const error = await rpcError(client.getPrompt({ name: 'typed.show', arguments: { flag: 'true' } }))
      expect(error.code).toBe(-32602)
      expect(error.message).toMatch(/\bn is required/)
      expect(error.data).toEqual({ code: 'INVALID_ARGS', details: [{ arg: 'n', message: 'is required' }] })
    })

    it('an argument that is not a string', async () => {
      const res = await post({
        jsonrpc: '2.0',
        id: 7,
        method: 'prompts/get',
        params: { name: 'typed.show', arguments: { n: 3 } },
      })
      const body = (await res.json()) as { error: { code: number; message: string; data: unknown } }
      expect(body.error).toMatchObject({ code: -32602, data: { code: 'INVALID_ARGS', argument: 'n' } })
    })
  })

  it('answers a prompt that does not exist with InvalidParams carrying NOT_FOUND', async () => {
    const client = await connect()
    const error = await rpcError(client.getPrompt({ name: 'nope.nothing' }))
    expect(error.code).toBe(-32602)
    expect(error.data).toMatchObject({ code: 'NOT_FOUND' })
  })

  describe("render errors carry the service's code and message", () => {
    /** The REST render's error body for the same prompt: its code and message are the MCP error's. */
    async function restError(id: string, over: Env = {}) {
      const { body } = await call({ ...env, ...over }, 'POST', `/api/prompts/${id}/render`, {})
      return body as { code: string; message: string }
    }

    it('MISSING_VARIABLE found before execution: InvalidParams naming the variable', async () => {
      const client = await connect()
      const error = await rpcError(client.getPrompt({ name: 'errs.missing' }))
      const rest = await restError('errs.missing')
      expect(rest.code).toBe('MISSING_VARIABLE')
      expect(error.code).toBe(-32602)
      expect(error.message).toBe(`MCP error -32602: ${rest.message}`)
      expect(error.data).toMatchObject({ code: 'MISSING_VARIABLE', variable: 'vscode.nope' })
    })

    it('MISSING_VARIABLE at execution: InvalidParams with its line and column', async () => {
      const client = await connect()
      const error = await rpcError(client.getPrompt({ name: 'errs.missing_key' }))
      expect(error.code).toBe(-32602)
      expect(error.message).toBe(`MCP error -32602: ${(await restError('errs.missing_key')).message}`)
      expect(error.data).toEqual({ code: 'MISSING_VARIABLE', variable: 'nope', line: 2, column: expect.any(Number) })
    })

    it('TEMPLATE_SYNTAX: InvalidParams', async () => {
      const client = await connect()
      const error = await rpcError(client.getPrompt({ name: 'errs.syntax' }))
      expect(error.code).toBe(-32602)
      expect(error.message).toMatch(/unclosed action/)
      expect(error.data).toMatchObject({ code: 'TEMPLATE_SYNTAX' })
    })

    it('RENDER_FAILED: InternalError', async () => {
      const client = await connect()
      const error = await rpcError(client.getPrompt({ name: 'errs.exec' }))
      expect(error.code).toBe(-32603)
      expect(error.message).toBe(`MCP error -32603: ${(await restError('errs.exec')).message}`)
      expect(error.data).toMatchObject({ code: 'RENDER_FAILED' })
    })

    it('RENDER_TIMEOUT: InternalError, at the deadline, and the hanging call is let go', async () => {
      await tools.reset('mcp-forever')
      const client = await connect({ RENDER_TIMEOUT_MS: '200', TOOL_TIMEOUT_MS: '60000' })
      const error = await rpcError(client.getPrompt({ name: 'tooly.forever' }))
      expect(error.code).toBe(-32603)
      expect(error.message).toMatch(
        /^MCP error -32603: rendering did not finish within 200 ms: \d+ ms waiting for tools/,
      )
      expect(error.data).toEqual({ code: 'RENDER_TIMEOUT', phase: 'tools' })
      const stats = await tools.idle('mcp-forever')
      expect(stats.calls).toBe(1)
      expect(stats.cutShort).toBe(1)
    })
  })
})

describe('tools', () => {
  it('lists every tool: its function name, description, parameters as JSON Schema, and an object `returns` as outputSchema', async () => {
    const client = await connect()
    const { tools: listed } = await client.listTools()
    const byName = new Map(listed.map((t) => [t.name, t]))
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining([
        'codebase_lookup_ref',
        'greeter_greet',
        'translate_zh_en',
        'mcpt_echo',
        'mcpt_typed',
        'mcpt_refs',
      ]),
    )
    expect(byName.has('mcpt_labelled')).toBe(false)
    // The map shape of parameters, as JSON Schema.
    expect(byName.get('codebase_lookup_ref')).toEqual({
      name: 'codebase_lookup_ref',
      description: 'Finds the places in the indexed codebase that reference a symbol',
      inputSchema: expect.objectContaining({
        type: 'object',
        properties: {
          symbol: { type: 'string', description: 'The symbol to look up' },
          limit: { type: 'integer', description: 'At most this many references', default: 20 },
        },
      }),
      outputSchema: { type: 'object', properties: { refs: { type: 'array', items: { type: 'string' } } } },
    })
    expect(byName.get('mcpt_typed')).toMatchObject({
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      outputSchema: ECHO_RETURNS,
    })
    expect(byName.get('mcpt_echo')).toMatchObject({
      description: 'echo',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    })
    // No `returns`, or one that is not an object schema: no outputSchema.
    expect(byName.get('mcpt_echo')).not.toHaveProperty('outputSchema')
    expect(byName.get('mcpt_listy')).not.toHaveProperty('outputSchema')
  })

  it("calls a REST tool: its JSON answer as structuredContent and as the text, checked by the client against the tool's outputSchema", async () => {
    await tools.reset('mcp-typed')
    const client = await connect()
    // The client checks structuredContent against the outputSchema it listed.
    await client.listTools()
    const result = await client.callTool({ name: 'mcpt_typed', arguments: { n: 4 } })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toMatchObject({
      method: 'GET',
      path: '/tools/typed',
      query: { n: '4', group: 'mcp-typed' },
    })
    expect(JSON.parse(textOf(result.content))).toEqual(result.structuredContent)
    expect((await tools.stats('mcp-typed')).calls).toBe(1)
  })

  it('calls an MCP tool through the real MCP server', async () => {
    await mcp.reset('mcp-endpoint')
    const client = await connect()
    const result = await client.callTool({ name: 'mcpt_refs', arguments: { symbol: 'Walk' } })
    expect(result.isError).toBeFalsy()
    // Its answer once, as text: the tool lists no outputSchema, which alone asks for structuredContent.
    expect(result).not.toHaveProperty('structuredContent')
    expect(JSON.parse(textOf(result.content))).toEqual({ refs: lookupRefs('Walk') })
    expect(await mcp.calls('mcp-endpoint')).toEqual({ lookup_ref: 1 })
  })

  it('gives an answer that is not JSON as text only', async () => {
    const client = await connect()
    const result = await client.callTool({ name: 'mcpt_text', arguments: { x: 'y' } })
    expect(result.isError).toBeFalsy()
    expect(result.content).toEqual([{ type: 'text', text: PLAIN_ANSWER }])
    expect(result).not.toHaveProperty('structuredContent')
  })

  it('answers a failing tool with isError and the reason, not a protocol error', async () => {
    await tools.reset('mcp-fail')
    const client = await connect()
    const result = await client.callTool({ name: 'mcpt_fail', arguments: { x: 'y' } })
    expect(result.isError).toBe(true)
    expect(textOf(result.content)).toMatch(/^answered HTTP 500/)
    expect(result).not.toHaveProperty('structuredContent')
    expect((await tools.stats('mcp-fail')).calls).toBe(1)
  })

  it('answers an MCP tool that fails with isError', async () => {
    const client = await connect()
    const result = await client.callTool({ name: 'mcpt_boom', arguments: {} })
    expect(result.isError).toBe(true)
    expect(textOf(result.content)).toMatch(/boom/)
  })

  it('answers a tool that does not answer within TOOL_TIMEOUT_MS with isError, and lets its call go', async () => {
    await tools.reset('mcp-hang')
    const client = await connect({ TOOL_TIMEOUT_MS: '150' })
    const result = await client.callTool({ name: 'mcpt_hang', arguments: { x: 'y' } })
    expect(result.isError).toBe(true)
    expect(result.content).toEqual([{ type: 'text', text: 'timed out after 150 ms' }])
    const stats = await tools.idle('mcp-hang')
    expect({ calls: stats.calls, cutShort: stats.cutShort }).toEqual({ calls: 1, cutShort: 1 })
  })

  it('answers a tool still running at the RENDER_TIMEOUT_MS deadline with isError, and lets its call go', async () => {
    await tools.reset('mcp-hang')
    const client = await connect({ RENDER_TIMEOUT_MS: '200', TOOL_TIMEOUT_MS: '60000' })
    const result = await client.callTool({ name: 'mcpt_hang', arguments: { x: 'y' } })
    expect(result.isError).toBe(true)
    // The reason names the limit that stopped it: the deadline, not the tool's own far timeout.
    expect(textOf(result.content)).toMatch(/\b200 ms\b/)
    const stats = await tools.idle('mcp-hang')
    expect({ calls: stats.calls, cutShort: stats.cutShort }).toEqual({ calls: 1, cutShort: 1 })
  })

  it('checks the arguments as a template call does: invalid ones are isError and never reach the tool', async () => {
    await tools.reset('mcp-typed')
    const client = await connect()
    const result = await client.callTool({ name: 'mcpt_typed', arguments: { n: 'not a number' } })
    expect(result.isError).toBe(true)
    expect(textOf(result.content)).toMatch(/^invalid arguments: /)
    expect((await tools.stats('mcp-typed')).calls).toBe(0)
  })

  it('keeps to TOOL_ALLOWED_HOSTS: a host not on it is isError without a request', async () => {
    await tools.reset('mcp-endpoint')
    const client = await connect({ TOOL_ALLOWED_HOSTS: 'tools.example.com' })
    const result = await client.callTool({ name: 'mcpt_echo', arguments: { q: 'x' } })
    expect(result.isError).toBe(true)
    expect(textOf(result.content)).toMatch(/is not in TOOL_ALLOWED_HOSTS$/)
    expect((await tools.stats('mcp-endpoint')).calls).toBe(0)
  })

  it('answers a tool that does not exist with InvalidParams', async () => {
    const client = await connect()
    const error = await rpcError(client.callTool({ name: 'mcpt_nothing', arguments: {} }))
    expect(error.code).toBe(-32602)
    expect(error.data).toMatchObject({ code: 'NOT_FOUND' })
  })
})

describe('resources', () => {
  it('lists one per shared variable, its dots as slashes, as JSON', async () => {
    const client = await connect()
    const { resources } = await client.listResources()
    expect(resources).toContainEqual({
      uri: 'environ://vscode/frameworks',
      name: 'vscode.frameworks',
      mimeType: 'application/json',
    })
    const uris = resources.map((r) => r.uri)
    expect(uris).toEqual(
      expect.arrayContaining([
        'environ://codebase/current_project',
        'environ://vscode/programming_language',
        'environ://vscode/rules',
        'environ://deep/a/b',
        'environ://deep/a/c',
        'environ://deep/top',
        'environ://lab/color',
      ]),
    )
    // Variables only: no prefix of them is listed.
    expect(uris).not.toContain('environ://deep')
    expect(uris).not.toContain('environ://deep/a')
    expect(new Set(uris).size).toBe(uris.length)
  })

  it('offers the environ:// template', async () => {
    const client = await connect()
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates).toEqual([expect.objectContaining({ uriTemplate: 'environ://{+path}' })])
  })

  it("reads a variable's JSON text", async () => {
    const client = await connect()
    const { contents } = await client.readResource({ uri: 'environ://vscode/frameworks' })
    expect(contents).toEqual([
      { uri: 'environ://vscode/frameworks', mimeType: 'application/json', text: expect.any(String) },
    ])
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual(['gin', 'gorm', 'gin-swagger'])
  })

  it.each(['deep', 'deep/a', 'vscode'])(
    'reads the prefix environ://%s as the merged subtree GET /api/environs answers',
    async (path) => {
      const client = await connect()
      const { contents } = await client.readResource({ uri: `environ://${path}` })
      const rest = await call(env, 'GET', `/api/environs/${path.replaceAll('/', '.')}`)
      expect(rest.status).toBe(200)
      expect(contents).toHaveLength(1)
      expect(contents[0]).toMatchObject({ uri: `environ://${path}`, mimeType: 'application/json' })
      expect(JSON.parse((contents[0] as { text: string }).text)).toEqual(rest.body.data)
    },
  )

  it('reads environ://deep as the object its variables form', async () => {
    const client = await connect()
    const { contents } = await client.readResource({ uri: 'environ://deep' })
    expect(JSON.parse((contents[0] as { text: string }).text)).toEqual({ a: { b: 1, c: { x: [1, 2] } }, top: 'top' })
  })

  it.each(['environ://nope/none', 'environ://deep/a/b/below', 'file:///etc/passwd'])(
    'answers %s, which does not exist, with -32002',
    async (uri) => {
      const client = await connect()
      const error = await rpcError(client.readResource({ uri }))
      expect(error.code).toBe(-32002)
    },
  )
})

describe('auth', () => {
  const TOKEN = 'mcp-secret'

  it('is 401 without the bearer token, or with a wrong one, when API_TOKEN is set', async () => {
    const over = { API_TOKEN: TOKEN }
    expect((await post(INITIALIZE, { over })).status).toBe(401)
    expect((await post(INITIALIZE, { over, headers: { authorization: 'Bearer wrong' } })).status).toBe(401)
    const refused = await connect(over).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(refused).toMatchObject({ code: 401 })
    const wrong = await connect(over, '', { headers: { Authorization: 'Bearer wrong' } }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(wrong).toMatchObject({ code: 401 })
  })

  it('serves with the bearer token', async () => {
    const over = { API_TOKEN: TOKEN }
    expect((await post(INITIALIZE, { over, headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200)
    const client = await connect(over, '', { headers: { Authorization: `Bearer ${TOKEN}` } })
    const { prompts } = await client.listPrompts()
    expect(prompts.map((p) => p.name)).toContain('evaluator.quick_review')
    const result = await client.callTool({ name: 'mcpt_text', arguments: {} })
    expect(result.content).toEqual([{ type: 'text', text: PLAIN_ANSWER }])
  })
})

describe('labels', () => {
  /** What a client sees of the label's overlay: lab.greet rendered, lab.only listed, lab.color read, mcpt_labelled listed. */
  async function view(client: Client) {
    const greet = await client.getPrompt({ name: 'lab.greet' })
    const { prompts } = await client.listPrompts()
    const { contents } = await client.readResource({ uri: 'environ://lab/color' })
    const { tools: listed } = await client.listTools()
    return {
      greet: textOf([greet.messages[0]?.content]),
      only: prompts.some((p) => p.name === 'lab.only'),
      color: JSON.parse((contents[0] as { text: string }).text) as unknown,
      labelledTool: listed.some((t) => t.name === 'mcpt_labelled'),
    }
  }
  const FEAT = { greet: 'feat blue', only: true, color: 'blue', labelledTool: true }
  const BASE = { greet: 'base red', only: false, color: 'red', labelledTool: false }

  it('without one, the base', async () => {
    expect(await view(await connect())).toEqual(BASE)
  })

  it('?label= in the URL: the label over the base', async () => {
    expect(await view(await connect({}, '?label=feat'))).toEqual(FEAT)
  })

  it('PROMPT_LABEL: the label over the base, and ?label= (empty) asks for the base', async () => {
    expect(await view(await connect({ PROMPT_LABEL: 'feat' }))).toEqual(FEAT)
    expect(await view(await connect({ PROMPT_LABEL: 'feat' }, '?label='))).toEqual(BASE)
  })

  it('a label that does not exist sees the base', async () => {
    expect(await view(await connect({}, '?label=other'))).toEqual(BASE)
  })
})

describe('list pages', () => {
  it("follow MCP's cursor: prompts/list, tools/list and resources/list answer nextCursor until the last page", async () => {
    const paged = await freshRedis()
    const records: Record<string, unknown> = {}
    for (let i = 0; i < 130; i++) {
      const n = String(i).padStart(3, '0')
      records[`shenma:templates:paged:p${n}`] = { prompt: `p${n}` }
      records[`shenma:tools:paged:t${n}`] = restTool('paged', `t${n}`, '/t')
      records[`shenma:environs:paged:v${n}`] = i
    }
    await paged.redis.mset(records)
    const client = await connect(paged.env)
    const walk = async (list: (cursor: string | undefined) => Promise<{ names: string[]; next?: string }>) => {
      const names: string[] = []
      const sizes: number[] = []
      let cursor: string | undefined
      do {
        const page = await list(cursor)
        names.push(...page.names)
        sizes.push(page.names.length)
        cursor = page.next
      } while (cursor !== undefined)
      return { names, sizes }
    }
    const prompts = await walk(async (cursor) => {
      const { prompts: items, nextCursor } = await client.listPrompts(cursor === undefined ? {} : { cursor })
      return { names: items.map((p) => p.name), ...(nextCursor === undefined ? {} : { next: nextCursor }) }
    })
    const tools = await walk(async (cursor) => {
      const { tools: items, nextCursor } = await client.listTools(cursor === undefined ? {} : { cursor })
      return { names: items.map((t) => t.name), ...(nextCursor === undefined ? {} : { next: nextCursor }) }
    })
    const resources = await walk(async (cursor) => {
      const { resources: items, nextCursor } = await client.listResources(cursor === undefined ? {} : { cursor })
      return { names: items.map((r) => r.name), ...(nextCursor === undefined ? {} : { next: nextCursor }) }
    })
    const all = (kind: string) => Array.from({ length: 130 }, (_, i) => `paged${kind}${String(i).padStart(3, '0')}`)
    expect(prompts).toEqual({ names: all('.p'), sizes: [100, 30] })
    expect(tools).toEqual({ names: all('_t'), sizes: [100, 30] })
    expect(resources).toEqual({ names: all('.v'), sizes: [100, 30] })
    const refused = await rpcError(client.listPrompts({ cursor: 'not a cursor' }))
    expect(refused.code).toBe(-32602)
    expect(refused.message).toMatch(/the cursor is not one this listing gave/)
    await paged.release()
  })
})
