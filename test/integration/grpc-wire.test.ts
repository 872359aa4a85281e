// The Worker's Connect and gRPC-Web calls (lib/tools/grpc.ts: connect-web's
// transports on the guarded, bounded fetch), inside workerd, on the answers a
// server or what stands in front of it may give that grpc.test.ts does not
// reach: a gRPC-Web status in the HTTP headers alone (trailers-only), an answer
// with no status, a Connect error that is not Connect's JSON (a proxy's page),
// an answer of another content type, statuses Connect and gRPC spell
// differently, a timeout too long for gRPC's 8 digits, and redirects. The gRPC
// test server writes by hand what connect-node never answers (`/answer/...`);
// the REST tool server stands for a proxy and for a server that redirects.
// Nothing is mocked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshRedis, grpcServer, renderStored, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import type { Env } from '../../lib/env'

const grpc = grpcServer()
const tools = toolServer()
let db: TestRedis

const SERVICE = 'greet.v1.GreetService'
/** The tool server under another name: a host TOOL_ALLOWED_HOSTS leaves out. */
const elsewhere = `http://localhost:${new URL(tools.url).port}`

/** A grpc tool record of module `wire`, `{"grpc": spec}`. */
function grpcTool(name: string, spec: Record<string, unknown>) {
  return {
    name,
    module: 'wire',
    type: 'grpc',
    description: name,
    grpc: spec,
    parameters: { type: 'object', properties: {} },
  }
}
/** gRPC-Web, binary protobuf. */
const web = (url: string, method = 'Greet') => ({
  url,
  service: SERVICE,
  method,
  protocol: 'grpc-web',
  descriptor: grpc.descriptor,
})
/** Connect, with its JSON codec (no descriptor). */
const connect = (url: string, method = 'Greet') => ({ url, service: SERVICE, method })
/** A tool server URL that answers 307 (a POST is sent again, body and all) to `to`. */
const redirect = (to: string) => `${tools.url}/redirect/307/tools/r?group=wire-redirect&to=${encodeURIComponent(to)}`

beforeAll(async () => {
  // The modules the Worker loads with its first grpc record and call, loaded here, out of the first render's
  // deadline: vitest-pool-workers fetches each module from Vite on its first import, which a deployed bundle never does.
  await Promise.all([import('../../lib/catalog/grpc-descriptor'), import('../../lib/tools/grpc')])
  db = await freshRedis()
  const specs: Record<string, Record<string, unknown>> = {
    trailers_only: web(`${grpc.url}/g/wire/answer/trailers-only/5/no%20such%20greeting`),
    raw_message: web(`${grpc.url}/g/wire/answer/trailers-only/14/100%`),
    no_status: web(`${grpc.url}/g/wire/answer/no-status`),
    fail_web: web(`${grpc.url}/g/wire-fail`, 'Fail'),
    fail_connect: connect(`${grpc.url}/g/wire-fail`, 'Fail'),
    greet_web: web(`${grpc.url}/g/wire-timeout`),
    greet_connect: { ...web(`${grpc.url}/g/wire-timeout`), protocol: 'connect' },
    echo: connect(`${tools.url}/tools/echo?group=wire`),
    proxy_text: connect(`${tools.url}/status/502/text/tools/p`),
    proxy_json: connect(`${tools.url}/status/404/tools/p`),
    not_connect: connect(`${tools.url}/text/tools/p`),
    moved: connect(redirect(`${tools.url}/tools/moved?group=wire-moved`)),
    away: connect(redirect(`${elsewhere}/tools/away?group=wire-away`)),
  }
  await db.redis.mset(
    Object.fromEntries(
      Object.entries(specs).map(([name, spec]) => [`shenma:tools:wire:${name}`, grpcTool(name, spec)]),
    ),
  )
})
afterAll(() => db.release())

const render = (name: string, prompt: string, env: Env = {}) =>
  renderStored(db, `wire.${name}`, prompt, { ...db.env, RENDER_TIMEOUT_MS: '3000', TOOL_TIMEOUT_MS: '1500', ...env })

/** The warnings of a render of `prompt`, which must render as nothing but `A` and `B`. */
async function warningsOf(name: string, prompt: string, env?: Env) {
  const { status, body } = await render(name, prompt, env)
  expect({ status, prompt: body.rendered_prompt }).toEqual({ status: 200, prompt: 'AB' })
  return body.warnings
}

describe('a gRPC-Web answer', () => {
  it('with its status in the HTTP headers and no body (trailers-only) fails with that status and message', async () => {
    expect(await warningsOf('trailers', 'A{{wire_trailers_only (dict "name" "x")}}B')).toEqual([
      { code: 'TOOL_FAILED', tool: 'wire_trailers_only', message: 'answered gRPC status NOT_FOUND: no such greeting' },
    ])
  })

  it('keeps a grpc-message that does not percent-decode as it came', async () => {
    expect(await warningsOf('raw', 'A{{wire_raw_message (dict)}}B')).toEqual([
      { code: 'TOOL_FAILED', tool: 'wire_raw_message', message: 'answered gRPC status UNAVAILABLE: 100%' },
    ])
  })

  it('with a message but no status anywhere fails, though the message would decode', async () => {
    expect(await warningsOf('no-status', 'A{{wire_no_status (dict)}}B')).toEqual([
      {
        code: 'TOOL_FAILED',
        tool: 'wire_no_status',
        // connect-web's words for it (the hand-written client said INTERNAL: protocol error: missing status).
        message: 'answered gRPC status UNKNOWN: missing trailer',
      },
    ])
  })
})

describe('a status', () => {
  it('is named as gRPC names it whichever protocol carried it: CANCELLED, Connect\'s "canceled"', async () => {
    const fail = (tool: string) => `{{${tool} (dict "code" "CANCELLED" "message" "50% off\\nand more")}}`
    const warnings = await warningsOf('cancelled', `A${fail('wire_fail_web')}${fail('wire_fail_connect')}B`)
    expect(warnings).toHaveLength(2)
    // The message percent-decoded (gRPC-Web) or as JSON gave it (Connect), and its first line only.
    expect(warnings).toEqual(
      expect.arrayContaining(
        ['wire_fail_web', 'wire_fail_connect'].map((tool) => ({
          code: 'TOOL_FAILED',
          tool,
          message: 'answered gRPC status CANCELLED: 50% off',
        })),
      ),
    )
  })
})

describe('the timeout the server is told', () => {
  it('is in milliseconds, for gRPC-Web too', async () => {
    await grpc.reset('wire-timeout')
    const { body } = await render('timeout', '{{(wire_greet_web (dict "name" "a")).greeting}}')
    expect(body.rendered_prompt).toBe('Hello, a!')
    expect((await grpc.requests('wire-timeout')).map((r) => r.timeoutHeader)).toEqual(['1500m'])
  })

  it("is in a coarser unit, rounded up, when it passes gRPC's 8 digits; Connect's 10 take it as it is", async () => {
    await grpc.reset('wire-timeout')
    const { body } = await render(
      'long-timeout',
      '{{(wire_greet_web (dict "name" "a")).greeting}} {{(wire_greet_connect (dict "name" "b")).greeting}}',
      { TOOL_TIMEOUT_MS: '100000001' },
    )
    expect(body).toMatchObject({ rendered_prompt: 'Hello, a! Hello, b!' })
    const requests = await grpc.requests('wire-timeout')
    expect(requests.map((r) => [r.protocol, r.timeoutHeader]).sort()).toEqual([
      ['connect', '100000001'],
      ['grpc-web', '100001S'],
    ])
  })
})

describe('a Connect answer', () => {
  it('comes from {url}/{service}/{method}, the URL keeping its query, the request message as JSON', async () => {
    const { body } = await render(
      'echo',
      '{{with wire_echo (dict "name" "Ada")}}{{.method}} {{.path}} {{.query.group}} {{.body.name}} {{index .headers "content-type"}}{{end}}',
    )
    expect(body.rendered_prompt).toBe(`POST /tools/echo/${SERVICE}/Greet wire Ada application/json`)
  })

  it("that is an error but not Connect's JSON is told by its HTTP status, by gRPC's mapping", async () => {
    const warnings = await warningsOf('proxy', 'A{{wire_proxy_text (dict)}}{{wire_proxy_json (dict)}}B')
    expect(warnings).toEqual(
      expect.arrayContaining([
        {
          code: 'TOOL_FAILED',
          tool: 'wire_proxy_text',
          message: 'answered gRPC status UNAVAILABLE: HTTP 502 Bad Gateway',
        },
        // A JSON body without Connect's code and message: the HTTP status stands in for both.
        {
          code: 'TOOL_FAILED',
          tool: 'wire_proxy_json',
          message: 'answered gRPC status UNIMPLEMENTED: HTTP 404 Not Found',
        },
      ]),
    )
    expect(warnings).toHaveLength(2)
  })

  it('of a content type that is not Connect fails, unread', async () => {
    expect(await warningsOf('not-connect', 'A{{wire_not_connect (dict)}}B')).toEqual([
      {
        code: 'TOOL_FAILED',
        tool: 'wire_not_connect',
        message: 'answered gRPC status UNKNOWN: unsupported content type text/plain; charset=utf-8',
      },
    ])
  })
})

describe('a grpc call redirected', () => {
  it('within its origin follows the redirect, sending its request again', async () => {
    const { body } = await render(
      'moved',
      '{{with wire_moved (dict "name" "Ada")}}{{.method}} {{.path}} {{.body.name}}{{end}}',
    )
    expect(body.rendered_prompt).toBe('POST /tools/moved Ada')
  })

  it('to a host the allow-list leaves out fails in the words of the refusal, and nothing reaches that host', async () => {
    await tools.reset('wire-away')
    const warnings = await warningsOf('away', 'A{{wire_away (dict "name" "Ada")}}B', {
      TOOL_ALLOWED_HOSTS: '127.0.0.1',
    })
    expect(warnings).toEqual([
      {
        code: 'TOOL_FAILED',
        tool: 'wire_away',
        message: `was redirected (HTTP 307) elsewhere, and its host ${new URL(elsewhere).host} is not in TOOL_ALLOWED_HOSTS`,
      },
    ])
    expect((await tools.stats('wire-away')).calls).toBe(0)
  })
})
