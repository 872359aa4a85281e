// gRPC tools called from templates, inside workerd, against the real
// connect-node server the test setup started (test/support/grpc-server.ts):
// Connect with JSON and with binary protobuf, gRPC-Web, failures named by
// their gRPC status, timeouts, concurrency, and a grpc call beside REST and
// MCP calls in one template. Nothing is mocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { get, grpcServer, logged, mcpServer, renderStored, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { freshRedis } from '../support/harness'
import { restTool } from '../support/records'
import type { Env } from '../../lib/env'

const grpc = grpcServer()
const tools = toolServer()
const mcp = mcpServer()
let db: TestRedis

const SERVICE = 'greet.v1.GreetService'

/** A grpc tool record of module `rpc` calling `method`, in `group` of the server. */
function grpcTool(name: string, method: string, group: string, spec: Record<string, unknown> = {}) {
  return {
    name,
    module: 'rpc',
    type: 'grpc',
    description: `${SERVICE}/${method}`,
    grpc: { url: `${grpc.url}/g/${group}`, service: SERVICE, method, descriptor: grpc.descriptor, ...spec },
    parameters: { type: 'object', properties: {} },
  }
}

beforeAll(async () => {
  // The modules the Worker loads with its first grpc record and call, loaded here, out of the first render's
  // deadline: vitest-pool-workers fetches each module from Vite on its first import, which a deployed bundle never does.
  await Promise.all([import('../../lib/catalog/grpc-descriptor'), import('../../lib/tools/grpc')])
  db = await freshRedis()
  await db.redis.mset({
    'shenma:tools:rpc:greet_json': { ...grpcTool('greet_json', 'Greet', 'json'), grpc: untyped('Greet', 'json') },
    'shenma:tools:rpc:greet_proto': grpcTool('greet_proto', 'Greet', 'proto'),
    'shenma:tools:rpc:greet_web': grpcTool('greet_web', 'Greet', 'web', { protocol: 'grpc-web' }),
    'shenma:tools:rpc:greet_named': {
      ...grpcTool('greet_named', 'Greet', 'named'),
      parameters: [{ name: 'name', type: 'string' }],
    },
    'shenma:tools:rpc:fail': grpcTool('fail', 'Fail', 'failures'),
    'shenma:tools:rpc:fail_web': grpcTool('fail_web', 'Fail', 'failures', { protocol: 'grpc-web' }),
    'shenma:tools:rpc:sleep': grpcTool('sleep', 'Sleep', 'timeouts'),
    'shenma:tools:rpc:big': grpcTool('big', 'Big', 'big'),
    'shenma:tools:rpc:typo': grpcTool('typo', 'Greet', 'typo'),
    'shenma:tools:rpc:relative': { ...grpcTool('relative', 'Greet', 'relative'), grpc: untypedAt('/g/relative') },
    'shenma:environs:modules:rpc': { base_url: grpc.url },
    ...Object.fromEntries(
      ['a', 'b', 'c', 'd', 'e'].map((t) => [
        `shenma:tools:fan:${t}`,
        { ...grpcTool(t, 'Sleep', 'fanout'), module: 'fan' },
      ]),
    ),
    'shenma:tools:rpc:watch': grpcTool('watch', 'Watch', 'streaming'),
    'shenma:tools:mixed:rest': restTool('mixed', 'rest', `${tools.url}/tools/mixed?group=mixed`),
    'shenma:tools:mixed:mcp': {
      name: 'mcp',
      module: 'mixed',
      type: 'mcp',
      mcp: { url: `${mcp.url}?group=mixed`, tool: 'echo_text' },
      description: 'echo',
      parameters: { text: { type: 'string' } },
    },
  })
})
afterAll(() => db.release())

/** Connect's JSON codec: no descriptor. */
function untyped(method: string, group: string) {
  return { url: `${grpc.url}/g/${group}`, service: SERVICE, method }
}
/** Connect's JSON codec, at a URL relative to the module's base URL. */
function untypedAt(path: string) {
  return { url: path, service: SERVICE, method: 'Greet' }
}

const render = (name: string, prompt: string, env: Env = {}) =>
  renderStored(db, `team.${name}`, prompt, { ...db.env, RENDER_TIMEOUT_MS: '3000', TOOL_TIMEOUT_MS: '1500', ...env })

describe('a grpc tool', () => {
  it('is called over Connect with JSON when it has no descriptor, and its answer is a value to walk', async () => {
    await grpc.reset('json')
    const { status, body } = await render('json', '{{(rpc_greet_json (dict "name" "Ada")).greeting}}')
    expect({ status, prompt: body.rendered_prompt, warnings: body.warnings }).toEqual({
      status: 200,
      prompt: 'Hello, Ada!',
      warnings: undefined,
    })
    const [request] = await grpc.requests('json')
    expect(request).toMatchObject({ method: 'Greet', contentType: 'application/json', protocol: 'connect' })
  })

  it('is called over Connect with binary protobuf when it has a descriptor, answering proto3 JSON', async () => {
    await grpc.reset('proto')
    const { body } = await render(
      'proto',
      '{{with rpc_greet_proto (dict "name" "Ada")}}{{.greeting}} {{.length}} {{.meta.server}} {{index .meta.tags 1}}{{end}}',
    )
    // int64 is a string in proto3 JSON.
    expect(body.rendered_prompt).toBe('Hello, Ada! 3 connect-node b')
    const [request] = await grpc.requests('proto')
    expect(request).toMatchObject({ method: 'Greet', contentType: 'application/proto', protocol: 'connect' })
    // The server is told how long the call may take.
    expect(request?.timeoutHeader).toBe('1500')
  })

  it('is called over gRPC-Web', async () => {
    await grpc.reset('web')
    const { body } = await render('web', '{{(rpc_greet_web (dict "name" "Ada")).greeting}}')
    expect(body.rendered_prompt).toBe('Hello, Ada!')
    const [request] = await grpc.requests('web')
    expect(request).toMatchObject({ contentType: 'application/grpc-web+proto', protocol: 'grpc-web' })
  })

  it('takes positional arguments in declaration order, and a URL relative to its module base URL', async () => {
    await grpc.reset('named')
    await grpc.reset('relative')
    const { body } = await render(
      'named',
      '{{(rpc_greet_named "Bo").greeting}} {{(rpc_relative (dict "name" "Cy")).greeting}}',
    )
    expect(body.rendered_prompt).toBe('Hello, Bo! Hello, Cy!')
    expect(await grpc.requests('relative')).toHaveLength(1)
  })

  it('fields left at their defaults are in the answer, so a template can read them', async () => {
    const { body } = await render('defaults', '[{{(rpc_greet_proto (dict)).greeting}}]')
    expect(body.rendered_prompt).toBe('[Hello, !]')
  })
})

describe('a failing grpc tool', () => {
  it('renders empty with a warning naming the gRPC status and the message, over both protocols', async () => {
    const {
      result: { status, body },
      lines,
    } = await logged(() =>
      render(
        'failures',
        'A{{rpc_fail (dict "code" "NOT_FOUND" "message" "no such greeting")}}B{{rpc_fail_web (dict "code" "UNAVAILABLE" "message" "down")}}C',
      ),
    )
    expect(status).toBe(200)
    expect(body.rendered_prompt).toBe('ABC')
    // In the order the calls failed, which the two calls running together leave open.
    expect(body.warnings).toHaveLength(2)
    expect(body.warnings).toEqual(
      expect.arrayContaining([
        { code: 'TOOL_FAILED', tool: 'rpc_fail', message: 'answered gRPC status NOT_FOUND: no such greeting' },
        { code: 'TOOL_FAILED', tool: 'rpc_fail_web', message: 'answered gRPC status UNAVAILABLE: down' },
      ]),
    )
    const calls = lines[0]?.tools as Record<string, unknown>[]
    expect(calls.map((c) => [c.tool, c.outcome, c.reason]).sort()).toEqual([
      ['rpc_fail', 'failed', 'answered gRPC status NOT_FOUND'],
      ['rpc_fail_web', 'failed', 'answered gRPC status UNAVAILABLE'],
    ])
  })

  it('is cut at TOOL_TIMEOUT_MS when it hangs, and the server sees the call go', async () => {
    await grpc.reset('timeouts')
    const { body } = await render('timeouts', 'A{{rpc_sleep (dict "ms" 5000)}}B', { TOOL_TIMEOUT_MS: '200' })
    expect(body.rendered_prompt).toBe('AB')
    expect(body.warnings).toEqual([{ code: 'TOOL_FAILED', tool: 'rpc_sleep', message: 'timed out after 200 ms' }])
    expect((await grpc.idle('timeouts')).inFlight).toBe(0)
  })

  it('fails when its answer passes TOOL_MAX_BYTES, and renders when it does not', async () => {
    const { body } = await render(
      'big',
      '{{len (rpc_big (dict "bytes" 100)).data}}|{{rpc_big (dict "bytes" 200000)}}',
      {
        TOOL_MAX_BYTES: '100000',
      },
    )
    expect(body.rendered_prompt).toBe('100|')
    expect(body.warnings).toEqual([
      {
        code: 'TOOL_FAILED',
        tool: 'rpc_big',
        message: expect.stringMatching(/more than TOOL_MAX_BYTES \(100000 bytes\)$/),
      },
    ])
  })

  it('fails before any request when its parameters do not make the request message', async () => {
    await grpc.reset('typo')
    const { body } = await render('typo', 'A{{rpc_typo (dict "nmae" "Ada")}}B')
    expect(body.rendered_prompt).toBe('AB')
    expect(body.warnings).toEqual([
      {
        code: 'TOOL_FAILED',
        tool: 'rpc_typo',
        message: expect.stringMatching(
          'invalid arguments: cannot decode message greet.v1.GreetRequest from JSON: key "nmae" is unknown',
        ),
      },
    ])
    expect(await grpc.requests('typo')).toEqual([])
  })

  it('is refused by TOOL_ALLOWED_HOSTS like every tool', async () => {
    await grpc.reset('json')
    const { body } = await render('allowed', 'A{{rpc_greet_json (dict "name" "x")}}B', {
      TOOL_ALLOWED_HOSTS: 'example.com',
    })
    expect(body.rendered_prompt).toBe('AB')
    expect(body.warnings).toEqual([
      { code: 'TOOL_FAILED', tool: 'rpc_greet_json', message: expect.stringMatching(/is not in TOOL_ALLOWED_HOSTS$/) },
    ])
    expect(await grpc.requests('json')).toEqual([])
  })
})

describe('grpc calls', () => {
  it('run at the same time: five 200 ms calls are all in flight together', async () => {
    await grpc.reset('fanout')
    const calls = ['a', 'b', 'c', 'd', 'e'].map((t) => `{{(fan_${t} (dict "ms" 200)).sleptMs}}`).join(' ')
    const { body } = await render('fanout', calls)
    expect(body.rendered_prompt).toBe('200 200 200 200 200')
    const stats = await grpc.idle('fanout')
    expect(stats.requests).toHaveLength(5)
    expect(stats.maxInFlight).toBe(5)
  })

  it('written twice, reach the server once, whichever way the arguments are written', async () => {
    await grpc.reset('named')
    const { body } = await render(
      'dedupe',
      '{{(rpc_greet_named "x").greeting}}{{(rpc_greet_named (dict "name" "x")).greeting}}',
    )
    expect(body.rendered_prompt).toBe('Hello, x!Hello, x!')
    expect(await grpc.requests('named')).toHaveLength(1)
  })

  it('mix with REST and MCP calls in one template', async () => {
    await grpc.reset('proto')
    const { body } = await render(
      'mixed',
      '{{(rpc_greet_proto (dict "name" "Ada")).greeting}} {{(mixed_rest "x").method}} {{(mixed_mcp "hi")}}',
    )
    expect(body.rendered_prompt).toBe('Hello, Ada! GET echo: hi')
  })
})

describe('a grpc record', () => {
  it('naming a streaming method is skipped and reported, never called', async () => {
    await grpc.reset('streaming')
    const { body } = await get({ ...db.env }, '/api/tools')
    expect((body.data as { id: string }[]).map((t) => t.id)).not.toContain('rpc_watch')
    expect(body.skipped).toContainEqual({
      key: 'shenma:tools:rpc:watch',
      reason: '$.grpc.method names Watch, a server-streaming method: only unary methods can be called',
    })
    expect(await grpc.requests('streaming')).toEqual([])
  })
})
