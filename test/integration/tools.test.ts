// Tools called from templates, against real servers the test setup started:
// a node:http tool server (delays, failures, counters) and an MCP server built
// with the SDK. Nothing is mocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { call, freshRedis, logged, mcpServer, renderStored, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { RPC_ERROR_MESSAGE } from '../support/mcp-server'
import { restTool } from '../support/records'
import type { Env } from '../../lib/env'

const tools = toolServer()
const mcp = mcpServer()
let db: TestRedis

/** A REST tool record of module `test`. */
const rest = (name: string, url: string, parameters?: unknown, method?: string) =>
  restTool('test', name, url, { parameters, method })

beforeAll(async () => {
  db = await freshRedis()
  const records: Record<string, unknown> = {}
  for (const t of ['a', 'b', 'c', 'd', 'e']) {
    records[`shenma:tools:slow:${t}`] = rest(t, `${tools.url}/delay/200/tools/${t}?group=fanout`)
  }
  for (let i = 1; i <= 8; i++)
    records[`shenma:tools:wide:t${i}`] = rest(`t${i}`, `${tools.url}/delay/100/tools/w${i}?group=wide`)
  Object.assign(records, {
    'shenma:tools:fail500': rest('fail500', `${tools.url}/status/500/tools/f?group=failures`),
    'shenma:tools:hang': rest('hang', `${tools.url}/hang/tools/h?group=failures`),
    'shenma:tools:typed': rest('typed', `${tools.url}/tools/typed?group=failures`, {
      n: { type: 'integer', required: true },
    }),
    'shenma:tools:badjson': rest('badjson', `${tools.url}/badjson/tools/b?group=failures`),
    'shenma:tools:text': rest('text', `${tools.url}/text/tools/t`),
    'shenma:tools:echo': rest('echo', `${tools.url}/tools/echo?group=dedupe`, { q: { type: 'string' } }),
    'shenma:tools:get_item': rest('get_item', `${tools.url}/tools/items/{id}?group=conv`, {
      type: 'object',
      properties: { id: { type: 'string' }, limit: { type: 'integer' } },
    }),
    'shenma:tools:put_item': rest(
      'put_item',
      `${tools.url}/tools/items/{id}?group=conv`,
      [
        { name: 'id', type: 'string' },
        { name: 'tags', type: 'array' },
      ],
      'PUT',
    ),
    'shenma:tools:relative': { ...rest('relative', '/tools/relative'), module: 'plain' },
    'shenma:tools:by_module': { ...rest('by_module', '/tools/by-module'), module: 'moduled' },
    'shenma:environs:modules:moduled': { base_url: `${tools.url}/delay/0` },
    'shenma:environs:lists:tags': ['a', 'b'],
    'shenma:tools:codebase:lookup_ref': {
      name: 'lookup_ref',
      module: 'codebase',
      type: 'mcp',
      mcp: { url: `${mcp.url}?group=tools` },
      description: 'references of a symbol',
      parameters: { type: 'object', properties: { symbol: { type: 'string' } }, required: ['symbol'] },
    },
    'shenma:tools:defaults:list': rest('list', `${tools.url}/tools/d`, [
      { name: 'q', type: 'string', default: 'from-list' },
      { name: 'n', type: 'int', default: 3 },
    ]),
    'shenma:tools:defaults:schema': rest('schema', `${tools.url}/tools/d`, {
      type: 'object',
      properties: { q: { type: 'string', default: 'from-schema' } },
    }),
    'shenma:tools:defaults:map': rest('map', `${tools.url}/tools/d`, { q: { type: 'string', default: 'from-map' } }),
    'shenma:tools:late:hang': rest('hang', `${tools.url}/hang/tools/h?group=abandoned`),
    'shenma:tools:late:slow': rest('slow', `${tools.url}/delay/100/tools/s?group=abandoned-slow`),
    'shenma:tools:late:mcp': {
      name: 'mcp',
      module: 'late',
      type: 'mcp',
      mcp: { url: `${tools.url}/hang/mcp?group=abandoned-mcp` },
      description: 'an MCP server that never answers',
      parameters: {},
    },
    'shenma:tools:codebase:echo': {
      name: 'echo',
      module: 'codebase',
      type: 'mcp',
      mcp: { url: `${mcp.url}?group=tools`, tool: 'echo_text' },
      description: 'echo',
      parameters: { text: { type: 'string' } },
    },
    'shenma:tools:sessions:echo': {
      name: 'echo',
      module: 'sessions',
      type: 'mcp',
      mcp: { url: `${mcp.url}-session?group=sessions`, tool: 'echo_text' },
      description: 'echo, by a server that keeps sessions and answers JSON',
      parameters: { text: { type: 'string' } },
    },
    'shenma:tools:streams:echo': {
      name: 'echo',
      module: 'streams',
      type: 'mcp',
      mcp: { url: `${mcp.url}-open`, tool: 'echo_text' },
      description: 'echo, by a server that keeps its event streams open after the reply',
      parameters: { text: { type: 'string' } },
    },
    'shenma:tools:broken:rpc': {
      name: 'rpc',
      module: 'broken',
      type: 'mcp',
      mcp: { url: `${mcp.url}-rpc-error` },
      description: 'a server that answers every request with a JSON-RPC error',
      parameters: {},
    },
  })
  await db.redis.mset(records)
})
afterAll(() => db.release())

/** Stores a prompt under team.{name} and renders it. */
const render = (name: string, prompt: string, env: Env = {}) =>
  renderStored(db, `team.${name}`, prompt, { ...db.env, RENDER_TIMEOUT_MS: '2000', TOOL_TIMEOUT_MS: '1000', ...env })

describe('independent tool calls', () => {
  it('run at the same time: five 200 ms tools are all in flight together', async () => {
    await tools.reset('fanout')
    const { status, body } = await render(
      'fanout',
      '{{(slow_a "1").path}} {{(slow_b "2").path}} {{(slow_c "3").path}} {{(slow_d "4").path}} {{(slow_e "5").path}}',
    )
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe(['a', 'b', 'c', 'd', 'e'].map((t) => `/delay/200/tools/${t}`).join(' '))
    const stats = await tools.stats('fanout')
    expect(stats.calls).toBe(5)
    expect(stats.maxActive).toBe(5)
  })

  it('are at most six in flight at once, the rest queued', async () => {
    await tools.reset('wide')
    const calls = Array.from({ length: 8 }, (_, i) => `{{(wide_t${i + 1} "x").path}}`).join(' ')
    const { body } = await render('wide', calls)
    expect((body.rendered_prompt as string).split(' ')).toHaveLength(8)
    const stats = await tools.stats('wide')
    expect({ calls: stats.calls, maxActive: stats.maxActive }).toEqual({ calls: 8, maxActive: 6 })
  })

  it('written twice, reach the tool once, whichever way the arguments are written', async () => {
    await tools.reset('dedupe')
    const { body } = await render(
      'dedupe',
      '{{(echo "same").query.q}} {{(echo "same").method}} {{(echo (dict "q" "same")).query.q}}',
    )
    expect(body.rendered_prompt).toBe('same GET same')
    expect((await tools.stats('dedupe')).calls).toBe(1)
  })
})

describe('failing tools', () => {
  it("render empty with a warning and an entry each in the request's log line, and the rest of the prompt stays", async () => {
    await tools.reset('failures')
    const {
      result: { status, body },
      lines,
    } = await logged(() =>
      render(
        'failures',
        'A{{fail500 "x"}}B{{hang "x"}}C{{typed "not a number"}}D{{(fail500 "x").field.deeper}}E{{badjson "x"}}F',
        { TOOL_TIMEOUT_MS: '150' },
      ),
    )
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('ABCDEF')
    // In the order the calls failed: fail500 and badjson, running together, may finish either way round.
    expect(body.warnings).toHaveLength(4)
    expect(body.warnings).toEqual(
      expect.arrayContaining([
        { code: 'TOOL_FAILED', tool: 'typed', message: expect.stringMatching(/^invalid arguments: /) },
        { code: 'TOOL_FAILED', tool: 'fail500', message: expect.stringMatching(/^answered HTTP 500/) },
        { code: 'TOOL_FAILED', tool: 'badjson', message: 'answered JSON that does not parse' },
        { code: 'TOOL_FAILED', tool: 'hang', message: 'timed out after 150 ms' },
      ]),
    )
    expect(lines).toHaveLength(1)
    const calls = lines[0]?.tools as Record<string, unknown>[]
    expect(calls.map((l) => l.tool).sort()).toEqual(['badjson', 'fail500', 'hang', 'typed'])
    for (const call of calls)
      expect(call).toEqual({ tool: call.tool, outcome: 'failed', reason: expect.any(String), ms: expect.any(Number) })
    // Invalid arguments never reach the server; the duplicate fail500 call went once.
    expect((await tools.stats('failures')).requests.map((r) => r.split(' ')[1])).not.toContain('/tools/typed')
  })

  it('are refused without a request when their host is not allowed', async () => {
    await tools.reset('dedupe')
    const { body } = await render('egress', '[{{echo "x"}}]', { TOOL_ALLOWED_HOSTS: 'tools.example.com, other:8080' })
    expect(body.rendered_prompt).toBe('[]')
    expect(body.warnings).toEqual([
      { code: 'TOOL_FAILED', tool: 'echo', message: expect.stringMatching(/is not in TOOL_ALLOWED_HOSTS$/) },
    ])
    expect((await tools.stats('dedupe')).calls).toBe(0)
  })
})

describe('REST calling convention', () => {
  it('fills path placeholders, sends the rest as a query for GET and as a JSON body for PUT', async () => {
    const { body } = await render(
      'convention',
      '{{$g := get_item "a b/c" 5}}{{$g.path}} {{$g.query.limit}} {{index $g.query "id"}}|' +
        '{{$p := put_item "x1" .lists.tags}}{{$p.method}} {{$p.path}} {{printf "%v" $p.body}}',
    )
    expect(body, JSON.stringify(body)).toMatchObject({ status: 'success' })
    // The query has no id: Go prints <no value>, and the answer says where.
    expect(body.warnings).toEqual([
      expect.objectContaining({ code: 'NO_VALUE', line: 1, column: 61, expression: '{{index $g.query "id"}}' }),
    ])
    expect(body.rendered_prompt).toBe('/tools/items/a%20b%2Fc 5 <no value>|PUT /tools/items/x1 map[tags:[a b]]')
  })

  it('turns a JSON answer into a value to walk and any other answer into a string', async () => {
    const { body } = await render('answers', '{{(echo "v").query.q}}|{{text "x"}}')
    expect(body.rendered_prompt).toBe('v|plain answer')
  })

  it('resolves relative URLs against TOOLS_BASE_URL, or the module base_url, which wins', async () => {
    const { body } = await render('relative', '{{(relative "1").path}} {{(by_module "1").path}}', {
      TOOLS_BASE_URL: `${tools.url}/delay/1`,
    })
    expect(body.rendered_prompt).toBe('/delay/1/tools/relative /delay/0/tools/by-module')
  })

  it('fails a relative URL with no base URL configured', async () => {
    const { body } = await render('no_base', '[{{relative "1"}}]')
    expect(body.rendered_prompt).toBe('[]')
    expect(body.warnings).toEqual([
      expect.objectContaining({ tool: 'relative', message: expect.stringMatching(/no base URL/) }),
    ])
  })
})

describe('parameter defaults', () => {
  it('are sent when the template does not give the parameter, in each of the three shapes', async () => {
    const { body } = await render(
      'defaults',
      '{{(defaults_list).query.q}} {{(defaults_list).query.n}} {{(defaults_schema).query.q}} ' +
        '{{(defaults_map).query.q}} {{(defaults_map "given").query.q}}',
    )
    expect(body.warnings).toBeUndefined()
    expect(body.rendered_prompt).toBe('from-list 3 from-schema from-map given')
  })
})

describe('a render that fails while calls are in flight', () => {
  // Deadline and tool timeout far off: only the render's end can let these calls go.
  const FAR: Env = { RENDER_TIMEOUT_MS: '60000', TOOL_TIMEOUT_MS: '60000' }

  /** A prompt whose first message waits on `pending` while its second fails, after a call of its own. */
  async function renderFailing(name: string, pending: string) {
    await db.redis.set(`shenma:templates:team:${name}`, {
      messages: [
        { role: 'system', content: pending },
        { role: 'user', content: '{{(late_slow "y").query.x}}{{if true}}{{.args.nope}}{{end}}' },
      ],
    })
    return call({ ...db.env, ...FAR }, 'POST', `/api/prompts/team.${name}/render`, {})
  }

  it('lets a REST call still running go', async () => {
    await tools.reset('abandoned')
    const { status, body } = await renderFailing('abandon_rest', '{{late_hang "x"}}')
    expect({ status, code: body.code }).toEqual({ status: 400, code: 'MISSING_VARIABLE' })
    const stats = await tools.idle('abandoned')
    expect(stats.cutShort).toBe(stats.calls)
  })

  it('answers without waiting for an MCP connection, and lets it go', async () => {
    await tools.reset('abandoned-mcp')
    const { status, body } = await renderFailing('abandon_mcp', '{{late_mcp}}')
    expect({ status, code: body.code }).toEqual({ status: 400, code: 'MISSING_VARIABLE' })
    const stats = await tools.idle('abandoned-mcp')
    expect(stats.cutShort).toBe(stats.calls)
  })
})

describe('MCP tools', () => {
  it('land their structured content, or their text, in the prompt through the real client and server', async () => {
    await mcp.reset('tools')
    const { status, body } = await render(
      'mcp',
      '{{range (codebase_lookup_ref "Run").refs}}- {{.}}\n{{end}}{{codebase_echo "hi"}}',
    )
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('- Run in main.go:12\n- Run in util.go:3\necho: hi')
    expect(await mcp.calls('tools')).toEqual({ lookup_ref: 1, echo_text: 1 })
  })

  it('share one session per server in a render, its id on every request after the handshake', async () => {
    await mcp.reset('sessions')
    const { status, body } = await render('mcp_session', '{{sessions_echo "a"}} {{sessions_echo "b"}}')
    expect({ status, prompt: body.rendered_prompt, warnings: body.warnings }).toEqual({
      status: 200,
      prompt: 'echo: a echo: b',
      warnings: undefined,
    })
    expect(await mcp.calls('sessions')).toEqual({ echo_text: 2 })
    // initialize, notifications/initialized, and the two calls.
    expect(await mcp.methods('sessions')).toEqual({ POST: 4 })
  })

  it('take their reply from an event stream the server keeps open, without waiting for its end', async () => {
    const { status, body } = await render('mcp_open', '{{streams_echo "a"}} {{streams_echo "b"}}')
    expect({ status, prompt: body.rendered_prompt, warnings: body.warnings }).toEqual({
      status: 200,
      prompt: 'echo: a echo: b',
      warnings: undefined,
    })
  })

  it("fail with the server's words when it answers a JSON-RPC error", async () => {
    const { status, body } = await render('mcp_rpc_error', '[{{broken_rpc}}]')
    expect({ status, prompt: body.rendered_prompt }).toEqual({ status: 200, prompt: '[]' })
    expect(body.warnings).toEqual([
      { code: 'TOOL_FAILED', tool: 'broken_rpc', message: `answered MCP error -32603: ${RPC_ERROR_MESSAGE}` },
    ])
  })
})
