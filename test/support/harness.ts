// Runs inside workerd: calls the real Worker with an environment pointing at
// a database of its own on the test Redis, reached through the bridge.
import {
  createExecutionContext,
  createScheduledController,
  env as bindings,
  waitOnExecutionContext,
} from 'cloudflare:test'
import { Redis } from '@upstash/redis/cloudflare'
import { inject, vi } from 'vitest'
import worker from '../../functions/index'
import type { Env } from '../../lib/env'
import type { GrpcRequestRecord, GrpcServerStats } from './grpc-server'
import type { LlmIdle, LlmRequestRecord, ScriptedAnswer } from './llm-server'
import type { BridgeStats } from './upstash-bridge'
import type { Cancellation, McpServerStats } from './mcp-server'
import type { ToolServerStats } from './tool-server'

export interface TestRedis {
  /** The Worker's environment for this database. */
  env: Env
  /** The real client, for writing fixtures the way publishers do. */
  redis: Redis
  /** Upstash HTTP requests made with this database's token since the last reset. */
  requests(): Promise<number>
  /** Bytes those requests sent: what reached Redis. */
  bytes(): Promise<number>
  /** The Redis commands those requests carried, each as sent (`["MGET", key, ...]`); the first 10,000 only. */
  commands(): Promise<string[][]>
  /** How many of each command those requests carried, by name (`{ MGET: 3 }`; a command never sent is absent): all of them. */
  counts(): Promise<Record<string, number>>
  /**
   * Adds `count` filler keys, written in Redis itself (100,000 in well under a second): half another application's
   * (`otherapp:session:<n>`, short values), half `shenma:environs:chat:history:<n>` (a small JSON object each), n from 0.
   * Not counted in requests or commands.
   */
  fill(count: number): Promise<void>
  /** Every later Upstash request of this database waits `ms` before it runs (0: none), as a Redis a region away. */
  latency(ms: number): Promise<void>
  /** While down, Redis is gone: every Upstash request's connection closes unanswered (a stall, by contrast, hangs). */
  down(down: boolean): Promise<void>
  resetRequests(): Promise<void>
  /** While stalled, Redis takes requests and never answers them. */
  stall(stalled: boolean): Promise<void>
  /** The next transaction holding `command` has Redis refuse that command, so none of it runs. */
  failNext(command: string): Promise<void>
  /** The next request holding `command` runs in Redis, and its answer is lost: the connection closes unanswered. */
  loseNext(command: string): Promise<void>
  release(): Promise<void>
}

/** The ADMIN_TOKEN of writableRedis's env: a write sends it as its bearer token. */
export const ADMIN = 'admin-secret'

/** A fresh database (freshRedis), and the Worker's env on it with writes allowed. */
export async function writableRedis(): Promise<{ db: TestRedis; env: Env }> {
  const db = await freshRedis()
  return { db, env: { ...db.env, ADMIN_TOKEN: ADMIN } }
}

/** A fresh, empty Redis database, reached through the bridge with its own token. */
export async function freshRedis(): Promise<TestRedis> {
  const bridge = inject('bridgeUrl')
  const res = await fetch(`${bridge}/__bridge/databases`, { method: 'POST' })
  if (!res.ok) throw new Error(`bridge refused a database: ${res.status} ${await res.text()}`)
  const { token } = (await res.json()) as { token: string }
  const admin = `${bridge}/__bridge/databases/${token}`
  const stats = async () => (await (await fetch(`${admin}/stats`)).json()) as BridgeStats
  return {
    env: { UPSTASH_REDIS_REST_URL: bridge, UPSTASH_REDIS_REST_TOKEN: token },
    redis: new Redis({ url: bridge, token, enableTelemetry: false }),
    async requests() {
      return (await stats()).requests
    },
    async bytes() {
      return (await stats()).bytes
    },
    async commands() {
      return (await (await fetch(`${admin}/commands`)).json()) as string[][]
    },
    async counts() {
      return (await stats()).byCommand
    },
    async fill(count) {
      await post(`${admin}/fill`, { count })
    },
    async latency(ms) {
      await post(`${admin}/latency`, { ms })
    },
    async down(down) {
      await fetch(`${admin}/down`, { method: down ? 'POST' : 'DELETE' })
    },
    async resetRequests() {
      await fetch(`${admin}/stats/reset`, { method: 'POST' })
    },
    async stall(stalled) {
      await fetch(`${admin}/stall`, { method: stalled ? 'POST' : 'DELETE' })
    },
    async failNext(command) {
      await fetch(`${admin}/fail-next/${encodeURIComponent(command)}`, { method: 'POST' })
    },
    async loseNext(command) {
      await fetch(`${admin}/lose-next/${encodeURIComponent(command)}`, { method: 'POST' })
    },
    async release() {
      await fetch(admin, { method: 'DELETE' })
    },
  }
}

/** POSTs `body` as JSON to a support server's admin route, failing on anything but 2xx. */
async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  })
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${await res.text()}`)
}

export interface Answer {
  status: number
  headers: Headers
  body: Record<string, unknown>
}

/** `env` with wrangler.toml's bindings. */
function withBindings(env: Env): Env {
  const { ASSETS } = bindings as Env
  return { ASSETS, ...env }
}

/** One request to the Worker, as it answers it (waiting for the work it left running), with wrangler.toml's bindings. */
export async function fetchWorker(env: Env, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext()
  const res = await worker.fetch(new Request(`http://shell.test${path}`, init), withBindings(env), ctx)
  await waitOnExecutionContext(ctx)
  return res
}

/** One run of the Worker's `scheduled` handler (a Cron Trigger firing), waiting for the work it left running. */
export async function runScheduled(env: Env, cron = '* * * * *'): Promise<void> {
  const { scheduled } = worker as { scheduled?: ExportedHandlerScheduledHandler<Env> }
  if (!scheduled) throw new Error('the Worker (functions/index.ts) exports no scheduled handler')
  const ctx = createExecutionContext()
  await scheduled(createScheduledController({ cron, scheduledTime: Date.now() }), withBindings(env), ctx)
  await waitOnExecutionContext(ctx)
}

/** One request to the Worker, answered as parsed JSON. `raw` sends a body as it is, JSON or not. */
export function call(env: Env, method: string, path: string, body?: unknown, raw?: string): Promise<Answer> {
  return answerTo(env, method, path, {}, body, raw)
}

/** One request to the Worker with `token` as its bearer token, answered as parsed JSON. */
export function callWithToken(env: Env, token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  return answerTo(env, method, path, { authorization: `Bearer ${token}` }, body)
}

/** One request to the Worker with the admin token (a write, a promote), answered as parsed JSON. */
export function callAsAdmin(env: Env, method: string, path: string, body?: unknown): Promise<Answer> {
  return callWithToken(env, ADMIN, method, path, body)
}

async function answerTo(
  env: Env,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  raw?: string,
): Promise<Answer> {
  const init: RequestInit = { method, headers }
  if (body !== undefined || raw !== undefined) {
    init.body = raw ?? JSON.stringify(body)
    init.headers = { ...headers, 'content-type': 'application/json' }
  }
  const res = await fetchWorker(env, path, init)
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> }
}

export const get = (env: Env, path: string) => call(env, 'GET', path)

/** Stores `prompt` as the direct prompt `id` (`team.x` at shenma:templates:team:x) and renders it, without args. */
export async function renderStored(db: TestRedis, id: string, prompt: string, env: Env): Promise<Answer> {
  await db.redis.set(`shenma:templates:${id.replaceAll('.', ':')}`, { prompt })
  return call(env, 'POST', `/api/prompts/${id}/render`, {})
}

/** The JSON lines the Worker logs while `run` runs, and what `run` returned. */
export async function logged<T>(run: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = []
  const spies = (['log', 'warn', 'error'] as const).map((level) =>
    vi.spyOn(console, level).mockImplementation((line: unknown) => {
      lines.push(JSON.parse(String(line)) as Record<string, unknown>)
    }),
  )
  try {
    return { result: await run(), lines }
  } finally {
    for (const spy of spies) spy.mockRestore()
  }
}

export interface ToolServerClient {
  /** Base URL of the REST tool server, no trailing slash: tools live under `${url}/tools/...` and the control prefixes. */
  url: string
  /** The calls of one group (the `?group=` query parameter; default `default`). */
  stats(group?: string): Promise<ToolServerStats>
  /** Starts the group afresh; requests still in flight no longer count. */
  reset(group?: string): Promise<void>
  /** The calls of a group once none is active: waits for the client of each to have gone away. */
  idle(group?: string): Promise<ToolServerStats>
  /** The calls of a group once one is active: a client is waiting on the server now. */
  busy(group?: string): Promise<ToolServerStats>
}

/** The REST tool server the global setup started (test/support/tool-server.ts). */
export function toolServer(): ToolServerClient {
  const url = inject('toolServerUrl')
  const admin = async (method: string, path: string, group = 'default'): Promise<unknown> => {
    const res = await fetch(`${url}${path}?group=${encodeURIComponent(group)}`, { method })
    if (!res.ok) throw new Error(`tool server ${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  return {
    url,
    stats: async (group) => (await admin('GET', '/__stats', group)) as ToolServerStats,
    reset: async (group) => void (await admin('POST', '/__reset', group)),
    idle: async (group) => (await admin('GET', '/__idle', group)) as ToolServerStats,
    busy: async (group) => (await admin('GET', '/__busy', group)) as ToolServerStats,
  }
}

export interface McpServerClient {
  /** The MCP endpoint (`.../mcp`); `?group=NAME` on it keeps a test's counts apart. */
  url: string
  /** Calls per tool name in a group (default `default`); tools never called are absent. */
  calls(group?: string): Promise<Record<string, number>>
  /** Requests to the MCP endpoint by HTTP method, in a group. */
  methods(group?: string): Promise<Record<string, number>>
  /** JSON-RPC messages received at `-session` by method, in a group. */
  rpc(group?: string): Promise<Record<string, number>>
  /** The group's cancelled `hold` calls, once there is one; fails after `withinMs` without one. */
  cancelled(group: string, withinMs: number): Promise<Cancellation[]>
  reset(group?: string): Promise<void>
}

/** The stateless MCP server the global setup started (test/support/mcp-server.ts). */
export function mcpServer(): McpServerClient {
  const url = inject('mcpUrl')
  const admin = async (method: string, path: string, group = 'default', signal?: AbortSignal): Promise<unknown> => {
    const res = await fetch(new URL(`${path}?group=${encodeURIComponent(group)}`, url), { method, signal })
    if (!res.ok) throw new Error(`MCP server ${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  return {
    url,
    calls: async (group) => ((await admin('GET', '/__stats', group)) as McpServerStats).calls,
    methods: async (group) => ((await admin('GET', '/__stats', group)) as McpServerStats).methods,
    rpc: async (group) => ((await admin('GET', '/__stats', group)) as McpServerStats).rpc,
    cancelled: async (group, withinMs) =>
      (await admin('GET', '/__cancelled', group, AbortSignal.timeout(withinMs))) as Cancellation[],
    reset: async (group) => void (await admin('POST', '/__reset', group)),
  }
}

export type { ScriptedAnswer }

export interface LlmServerClient {
  /** Base URL for an OpenAI-compatible client, `http://127.0.0.1:<port>/v1` (no trailing slash). */
  url: string
  /** The chat requests made with this exact model string since its last reset, in arrival order. */
  requests(model: string): Promise<LlmRequestRecord[]>
  /** Forgets the model's requests, restarting its fail-N (and the like) count. */
  reset(model: string): Promise<void>
  /** Once no answer of the model is being written: how many the client left before they were complete. */
  idle(model: string): Promise<LlmIdle>
  /**
   * Scripts the model, whatever its name, and forgets its requests: the Nth chat request from now takes
   * `answers[N-1]`; past the end the last one again with `repeatLast`, else a 500. `reset` forgets the script.
   */
  script(model: string, answers: ScriptedAnswer[], options?: { repeatLast?: boolean }): Promise<void>
}

/**
 * The environment of a chat test: `db`'s, and the provider the global setup started, with the key
 * `test-key`, a short LLM_TIMEOUT_MS, and no waits between retries but where a test is about them (the
 * policy's own are in test/unit/llm-options.test.ts).
 */
export function chatEnv(db: TestRedis, over: Env = {}): Env {
  const llm = inject('llmUrl')
  return {
    ...db.env,
    LLM_BASE_URL: llm,
    LLM_API_KEY: 'test-key',
    LLM_TIMEOUT_MS: '1000',
    LLM_RETRY_DELAYS_MS: '0,0',
    ...over,
  }
}

/** The OpenAI-compatible provider the global setup started (test/support/llm-server.ts). */
export function llmServer(): LlmServerClient {
  const url = inject('llmUrl')
  const admin = async (method: string, path: string, model: string, body?: unknown): Promise<unknown> => {
    const init: RequestInit = { method }
    if (body !== undefined) {
      init.body = JSON.stringify(body)
      init.headers = { 'content-type': 'application/json' }
    }
    const res = await fetch(new URL(`${path}?model=${encodeURIComponent(model)}`, url), init)
    if (!res.ok) throw new Error(`LLM server ${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  return {
    url,
    requests: async (model) =>
      ((await admin('GET', '/__requests', model)) as { requests: LlmRequestRecord[] }).requests,
    reset: async (model) => void (await admin('POST', '/__reset', model)),
    idle: async (model) => (await admin('GET', '/__idle', model)) as LlmIdle,
    script: async (model, answers, options = {}) =>
      void (await admin('POST', '/__script', model, { answers, repeat_last: options.repeatLast ?? false })),
  }
}

export type { GrpcRequestRecord, GrpcServerStats }

export interface GrpcServerClient {
  /**
   * Base URL, no trailing slash: RPCs at `${url}/greet.v1.GreetService/<Method>`, or at
   * `${url}/g/<group>/greet.v1.GreetService/<Method>` to keep a test's records apart.
   */
  url: string
  /** greet.binpb, the FileDescriptorSet of greet.v1 (test/support/grpc/greet.proto), in base64. */
  descriptor: string
  /** The RPC requests of a group (default `default`) since its last reset, in arrival order. */
  requests(group?: string): Promise<GrpcRequestRecord[]>
  /** Forgets the group; requests still in flight finish against the old record. */
  reset(group?: string): Promise<void>
  /** The group's record once none of its requests is in flight: waits for each handler to have seen its client go. */
  idle(group?: string): Promise<GrpcServerStats>
}

/** The gRPC server the global setup started (test/support/grpc-server.ts). */
export function grpcServer(): GrpcServerClient {
  const url = inject('grpcUrl')
  const admin = async (method: string, path: string, group = 'default'): Promise<unknown> => {
    const res = await fetch(`${url}${path}?group=${encodeURIComponent(group)}`, { method })
    if (!res.ok) throw new Error(`gRPC server ${method} ${path}: ${res.status} ${await res.text()}`)
    return res.json()
  }
  return {
    url,
    descriptor: inject('grpcDescriptor'),
    requests: async (group) => ((await admin('GET', '/__stats', group)) as GrpcServerStats).requests,
    reset: async (group) => void (await admin('POST', '/__reset', group)),
    idle: async (group) => (await admin('GET', '/__idle', group)) as GrpcServerStats,
  }
}
