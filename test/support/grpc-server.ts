// A real gRPC server: connect-node's adapter on a plain node:http (HTTP/1.1)
// server, with the Connect, gRPC-Web and gRPC protocols all on (the adapter's
// defaults). Its service is not generated code: it is read at start from
// grpc/greet.binpb, the FileDescriptorSet of grpc/greet.proto, the way a
// client that is handed a descriptor sees it, and its handlers take and give
// dynamic messages.
//
// greet.v1.GreetService:
//   Greet { name }          { greeting: "Hello, <name>!", length: <name's length, int64>,
//                             meta: { server: "connect-node", tags: ["a", "b"] } }
//   Sleep { ms }            waits ms, then { sleptMs: ms }; fails at once when the call's deadline passes or the
//                           client goes away first
//   Fail { code, message }  fails with that code (UPPER_SNAKE, NOT_FOUND; INTERNAL when empty) and message
//   Big { bytes }           { data: that many `x`s }
//   Watch { name }          server-streaming: two Greet answers (there to be refused as not unary)
//
// Groups keep tests apart: any RPC path may be prefixed with `/g/<group>`
// (`/g/timeouts/greet.v1.GreetService/Sleep`); the prefix is stripped before the
// adapter routes the request, and requests without one belong to `default`.
// Every RPC request is recorded on arrival under its group (`GrpcRequestRecord`),
// and the requests of each group in flight are counted, from arrival until both
// the response has closed and the handler has returned.
//
//   GET /__stats?group=NAME   `GrpcServerStats`
//   GET /__idle?group=NAME    the same, once no request of the group is in flight (an event to wait on)
//   GET /__busy?group=NAME&count=N  the same, once N requests of the group are in flight (default 1)
//   POST /__reset?group=NAME  forgets the group (requests still in flight finish against the old record)
//
// Answers a gRPC-Web server may give but connect-node never does are written by hand, not by the adapter, for an RPC
// path (after any group prefix) that begins `/answer/<kind>/`; the RPC after it is ignored, and the request is
// recorded like any other:
//   /answer/trailers-only/<code>/<message>/...  HTTP 200, `grpc-status: <code>` and `grpc-message: <message>` (as
//                                               written in the path, so percent-encoded) in the headers, no body
//   /answer/no-status/...                       HTTP 200, one data frame of an empty message, and no status at all
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createFileRegistry, fromBinary } from '@bufbuild/protobuf'
import type { Message } from '@bufbuild/protobuf'
import type { GenMessage, GenService } from '@bufbuild/protobuf/codegenv2'
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt'
import { Code, ConnectError, createContextKey, createContextValues } from '@connectrpc/connect'
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect'
import { connectNodeAdapter } from '@connectrpc/connect-node'
import { closeNow, listenOnLoopback } from './ports'
import { messageOf, send, sleep } from './serving'

export interface GrpcTestServer {
  /** Base URL, `http://127.0.0.1:<port>` (no trailing slash): RPCs live at `${url}/greet.v1.GreetService/<Method>`. */
  url: string
  /** greet.binpb in base64: the FileDescriptorSet the server itself was built from. */
  descriptorBase64: string
  stop(): Promise<void>
}

/** The RPC protocol of a request, told by its Content-Type. */
export type GrpcProtocol = 'connect' | 'grpc-web' | 'grpc'

/** One RPC request as it arrived. */
export interface GrpcRequestRecord {
  /** The path as sent, `/g/<group>` prefix included, without the query. */
  path: string
  /** The RPC method's name, the path's last segment (`Greet`), whether or not the service has it. */
  method: string
  /** The request's Content-Type (`application/json`, `application/proto`, `application/grpc-web+proto`), or null. */
  contentType: string | null
  protocol: GrpcProtocol
  /** The `connect-timeout-ms` header, else the `grpc-timeout` header, else null. */
  timeoutHeader: string | null
}

export interface GrpcServerStats {
  /** The group's RPC requests since its last reset, in arrival order. */
  requests: GrpcRequestRecord[]
  /** The group's requests whose response is still open or whose handler still runs. */
  inFlight: number
  /** The most requests of the group in flight at once since its last reset: calls that overlapped. */
  maxInFlight: number
}

export const GREET_SERVICE = 'greet.v1.GreetService'

// The messages of greet.proto as protoc-gen-es would generate them, written by
// hand (there is no codegen step): they only type what the registry holds.
export type GreetRequest = Message<'greet.v1.GreetRequest'> & { name: string }
export type Meta = Message<'greet.v1.Meta'> & { server: string; tags: string[] }
export type GreetResponse = Message<'greet.v1.GreetResponse'> & { greeting: string; length: bigint; meta?: Meta }
export type SleepRequest = Message<'greet.v1.SleepRequest'> & { ms: number }
export type SleepResponse = Message<'greet.v1.SleepResponse'> & { sleptMs: number }
export type FailRequest = Message<'greet.v1.FailRequest'> & { code: string; message: string }
export type FailResponse = Message<'greet.v1.FailResponse'>
export type BigRequest = Message<'greet.v1.BigRequest'> & { bytes: number }
export type BigResponse = Message<'greet.v1.BigResponse'> & { data: string }

/** greet.v1.GreetService with its methods typed as generated code types them (for `createClient`, `router.service`). */
export type GreetServiceDesc = GenService<{
  greet: { methodKind: 'unary'; input: GenMessage<GreetRequest>; output: GenMessage<GreetResponse> }
  sleep: { methodKind: 'unary'; input: GenMessage<SleepRequest>; output: GenMessage<SleepResponse> }
  fail: { methodKind: 'unary'; input: GenMessage<FailRequest>; output: GenMessage<FailResponse> }
  big: { methodKind: 'unary'; input: GenMessage<BigRequest>; output: GenMessage<BigResponse> }
  watch: { methodKind: 'server_streaming'; input: GenMessage<GreetRequest>; output: GenMessage<GreetResponse> }
}>

/** Greet's `meta.server`. */
export const GREET_SERVER = 'connect-node'
export const GREET_TAGS = ['a', 'b'] as const
/** How many answers Watch streams. */
export const WATCH_ANSWERS = 2
export const DEFAULT_GROUP = 'default'

/**
 * greet.binpb in base64, read when this module is imported. Only in Node:
 * inside workerd the host's files are out of reach, so tests there get the same
 * bytes through `inject('grpcDescriptor')` (test/support/global-setup.ts).
 */
export const GREET_DESCRIPTOR_BASE64 = readFileSync(new URL('./grpc/greet.binpb', import.meta.url)).toString('base64')

const GROUP_PREFIX = /^\/g\/([^/]+)(\/.*)?$/

/** What the handlers know of the request they serve, passed through the adapter as a context value. */
interface Call {
  stats: GrpcServerStats
  /** The response and the handler, each while open or running: the call is in flight while any holds it. */
  holds: number
}
const callKey = createContextKey<Call | undefined>(undefined, { description: 'grpc-server call' })

/**
 * The service out of a FileDescriptorSet in base64 (greet.binpb's by default), through a registry: the way a client
 * handed only the descriptor gets it.
 */
export function greetService(descriptorBase64: string = GREET_DESCRIPTOR_BASE64): GreetServiceDesc {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, Buffer.from(descriptorBase64, 'base64')))
  const service = registry.getService(GREET_SERVICE)
  if (!service) throw new Error(`the descriptor has no ${GREET_SERVICE}`)
  return service as unknown as GreetServiceDesc
}

export async function startGrpcServer(): Promise<GrpcTestServer> {
  const service = greetService(GREET_DESCRIPTOR_BASE64)

  const groups = new Map<string, GrpcServerStats>()
  const statsOf = (group: string): GrpcServerStats => {
    let stats = groups.get(group)
    if (!stats) groups.set(group, (stats = { requests: [], inFlight: 0, maxInFlight: 0 }))
    return stats
  }
  const snapshot = (stats: GrpcServerStats): GrpcServerStats => ({
    requests: stats.requests.map((r) => ({ ...r })),
    inFlight: stats.inFlight,
    maxInFlight: stats.maxInFlight,
  })
  /** Who waits for a group's count of requests in flight to reach a point (`/__idle`, `/__busy`). */
  const waiters: { group: string; ready: (inFlight: number) => boolean; resolve: () => void }[] = []
  const wake = (): void => {
    for (const waiter of waiters.filter((w) => w.ready(statsOf(w.group).inFlight))) {
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve()
    }
  }
  const waitFor = (group: string, ready: (inFlight: number) => boolean): Promise<void> =>
    new Promise<void>((resolve) => {
      waiters.push({ group, ready, resolve })
      wake()
    })
  const hold = (call: Call): void => {
    if (call.holds++ === 0) call.stats.maxInFlight = Math.max(call.stats.maxInFlight, ++call.stats.inFlight)
    wake()
  }
  const release = (call: Call): void => {
    if (--call.holds > 0) return
    call.stats.inFlight--
    wake()
  }
  /** Runs a handler's work while holding its call, so /__idle waits for the handler, not only the response. */
  const busy = async <T>(context: HandlerContext, work: () => Promise<T>): Promise<T> => {
    const call = context.values.get(callKey)
    if (call) hold(call)
    try {
      return await work()
    } finally {
      if (call) release(call)
    }
  }

  const greeting = (name: string) => ({
    greeting: `Hello, ${name}!`,
    length: BigInt(name.length),
    meta: { server: GREET_SERVER, tags: [...GREET_TAGS] },
  })
  const impl: ServiceImpl<GreetServiceDesc> = {
    greet: (req, context) => busy(context, async () => greeting(req.name)),
    sleep: (req, context) =>
      busy(context, async () => {
        const ms = Math.max(0, req.ms)
        await sleep(ms, context.signal)
        // Cut short by the deadline (connect-timeout-ms, grpc-timeout) or the client leaving: fail, as servers do.
        context.signal.throwIfAborted()
        return { sleptMs: ms }
      }),
    fail: (req, context) =>
      busy(context, async () => {
        const { code, message } = req
        const known = codeOf(code)
        if (known === undefined) throw new ConnectError(`Fail: no status code named ${code}`, Code.InvalidArgument)
        throw new ConnectError(message, known)
      }),
    big: (req, context) =>
      busy(context, async () => {
        const { bytes } = req
        if (bytes < 0) throw new ConnectError(`Big: negative size ${bytes}`, Code.InvalidArgument)
        return { data: 'x'.repeat(bytes) }
      }),
    watch: async function* (req, context) {
      // Held from the first pull to the last; both answers are small and written at once.
      const call = context.values.get(callKey)
      if (call) hold(call)
      try {
        for (let i = 0; i < WATCH_ANSWERS; i++) yield greeting(req.name)
      } finally {
        if (call) release(call)
      }
    },
  }

  /** The call of each request, for `contextValues` to hand to the handler. */
  const calls = new WeakMap<object, Call>()
  const rpc = connectNodeAdapter({
    routes: (router) => router.service(service, impl),
    contextValues: (req) => createContextValues().set(callKey, calls.get(req)),
  })

  /** Responses still open, cut on stop. */
  const open = new Set<ServerResponse>()

  const admin = async (req: IncomingMessage, url: URL): Promise<[number, unknown]> => {
    const group = url.searchParams.get('group') ?? DEFAULT_GROUP
    if (url.pathname === '/__stats' && req.method === 'GET') return [200, snapshot(statsOf(group))]
    if (url.pathname === '/__idle' && req.method === 'GET') {
      await waitFor(group, (inFlight) => inFlight === 0)
      return [200, snapshot(statsOf(group))]
    }
    if (url.pathname === '/__busy' && req.method === 'GET') {
      const count = Number(url.searchParams.get('count') ?? '1')
      await waitFor(group, (inFlight) => inFlight >= count)
      return [200, snapshot(statsOf(group))]
    }
    if (url.pathname === '/__reset' && req.method === 'POST') {
      groups.delete(group)
      return [200, { ok: true }]
    }
    return [404, { error: `no admin route ${req.method} ${url.pathname}` }]
  }

  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://grpc-server')
    if (url.pathname.startsWith('/__')) {
      admin(req, url)
        .then(([status, payload]) => send(res, status, payload))
        .catch((error: unknown) => {
          if (!res.headersSent) send(res, 500, { error: messageOf(error) })
          else res.destroy()
        })
      return
    }
    let group = DEFAULT_GROUP
    let rpcPath = url.pathname
    const prefixed = GROUP_PREFIX.exec(url.pathname)
    if (prefixed) {
      try {
        group = decodeURIComponent(prefixed[1] as string)
      } catch {
        send(res, 400, { error: `bad group in ${url.pathname}` })
        return
      }
      rpcPath = prefixed[2] ?? '/'
    }

    // Recorded on arrival, before the adapter can refuse anything.
    const stats = statsOf(group)
    const contentType = req.headers['content-type'] ?? null
    stats.requests.push({
      path: url.pathname,
      method: rpcPath.slice(rpcPath.lastIndexOf('/') + 1),
      contentType,
      protocol: protocolOf(contentType),
      timeoutHeader: header(req, 'connect-timeout-ms') ?? header(req, 'grpc-timeout') ?? null,
    })
    const call: Call = { stats, holds: 0 }
    hold(call)
    open.add(res)
    res.once('close', () => {
      open.delete(res)
      release(call)
    })
    calls.set(req, call)
    if (rpcPath.startsWith('/answer/')) {
      req.resume()
      answerByHand(rpcPath, res)
      return
    }
    // The adapter routes on req.url alone, so it sees the path without the group.
    req.url = rpcPath + url.search
    rpc(req, res)
  })
  const port = await listenOnLoopback(http)

  return {
    url: `http://127.0.0.1:${port}`,
    descriptorBase64: GREET_DESCRIPTOR_BASE64,
    async stop() {
      await closeNow(http, open)
    },
  }
}

/** An `/answer/<kind>/...` answer (see the top of this file); 404 for a kind there is not. */
function answerByHand(rpcPath: string, res: ServerResponse): void {
  const [, , kind, code = '', message = ''] = rpcPath.split('/')
  const grpcWeb = { 'content-type': 'application/grpc-web+proto' }
  if (kind === 'trailers-only') {
    res.writeHead(200, { ...grpcWeb, 'grpc-status': code, 'grpc-message': message })
    res.end()
  } else if (kind === 'no-status') {
    res.writeHead(200, grpcWeb)
    // Flags 0 (data), length 0: an empty message, which decodes as any message with its fields at their defaults.
    res.end(Buffer.alloc(5))
  } else {
    res.writeHead(404)
    res.end()
  }
}

/** A status code from its gRPC name in UPPER_SNAKE_CASE (`NOT_FOUND`); INTERNAL for ''; undefined when unknown. */
function codeOf(name: string): Code | undefined {
  if (name === '') return Code.Internal
  // gRPC spells it CANCELLED, Connect's enum Canceled.
  const key = name
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')
    .replace(/^Cancelled$/, 'Canceled')
  const code = (Code as unknown as Record<string, unknown>)[key]
  return typeof code === 'number' ? (code as Code) : undefined
}

function protocolOf(contentType: string | null): GrpcProtocol {
  if (contentType === null) return 'connect'
  if (/^application\/grpc-web(-text)?([+;]|$)/i.test(contentType)) return 'grpc-web'
  if (/^application\/grpc([+;]|$)/i.test(contentType)) return 'grpc'
  return 'connect'
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}
