// The gRPC test server, called through connect-web's fetch transports on Node's
// own fetch, apart from the Worker's calls (lib/tools/grpc.ts), on the
// service read from the descriptor the server hands out.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { Code, ConnectError, createClient } from '@connectrpc/connect'
import type { Client } from '@connectrpc/connect'
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-web'
import {
  startGrpcServer,
  greetService,
  GREET_DESCRIPTOR_BASE64,
  GREET_SERVER,
  GREET_SERVICE,
  WATCH_ANSWERS,
} from '../support/grpc-server.js'
import type { GreetServiceDesc, GrpcServerStats, GrpcTestServer } from '../support/grpc-server.js'

type Kind = 'connect+json' | 'connect+proto' | 'grpc-web+proto'
const KINDS: Kind[] = ['connect+json', 'connect+proto', 'grpc-web+proto']

describe('gRPC test server, through connect-web', () => {
  let server: GrpcTestServer
  let service: GreetServiceDesc

  beforeAll(async () => {
    server = await startGrpcServer()
    service = greetService(server.descriptorBase64)
  })
  afterAll(async () => {
    await server?.stop()
  })

  /** The group's base URL: `/g/<group>` in front of every RPC path, or none for `default`. */
  const base = (group?: string) => (group === undefined ? server.url : `${server.url}/g/${group}`)
  /** One client per protocol and encoding the Worker may use. */
  const client = (kind: Kind, group?: string): Client<GreetServiceDesc> => {
    const baseUrl = base(group)
    const transport =
      kind === 'grpc-web+proto'
        ? createGrpcWebTransport({ baseUrl, useBinaryFormat: true })
        : createConnectTransport({ baseUrl, useBinaryFormat: kind === 'connect+proto' })
    return createClient(service, transport)
  }
  const admin = async (method: string, path: string, group: string): Promise<GrpcServerStats> => {
    const res = await fetch(`${server.url}${path}?group=${encodeURIComponent(group)}`, { method })
    expect(res.status).toBe(200)
    return (await res.json()) as GrpcServerStats
  }
  const stats = (group: string) => admin('GET', '/__stats', group)
  const idle = (group: string) => admin('GET', '/__idle', group)
  const busy = (group: string) => admin('GET', '/__busy', group)
  const reset = async (group: string) => void (await admin('POST', '/__reset', group))

  it('hands out the descriptor it was built from, which holds the service', () => {
    expect(server.descriptorBase64).toBe(GREET_DESCRIPTOR_BASE64)
    expect(service.typeName).toBe(GREET_SERVICE)
    expect(service.methods.map((m) => [m.name, m.methodKind])).toEqual([
      ['Greet', 'unary'],
      ['Sleep', 'unary'],
      ['Fail', 'unary'],
      ['Big', 'unary'],
      ['Watch', 'server_streaming'],
    ])
  })

  it('greets over Connect JSON, Connect binary and gRPC-Web, and records each request with its group', async () => {
    await reset('greet')
    for (const kind of KINDS) {
      const answer = await client(kind, 'greet').greet({ name: 'Ada' })
      expect(answer.greeting).toBe('Hello, Ada!')
      expect(answer.length).toBe(3n)
      expect(answer.meta?.server).toBe(GREET_SERVER)
      expect(answer.meta?.tags).toEqual(['a', 'b'])
    }
    const path = `/g/greet/${GREET_SERVICE}/Greet`
    expect(await stats('greet')).toEqual({
      requests: [
        { path, method: 'Greet', contentType: 'application/json', protocol: 'connect', timeoutHeader: null },
        { path, method: 'Greet', contentType: 'application/proto', protocol: 'connect', timeoutHeader: null },
        {
          path,
          method: 'Greet',
          contentType: 'application/grpc-web+proto',
          protocol: 'grpc-web',
          timeoutHeader: null,
        },
      ],
      inFlight: 0,
      maxInFlight: 1,
    })
  })

  it('records requests without a prefix under default, and the timeout header each protocol sends', async () => {
    await reset('default')
    await client('connect+json').greet({ name: 'x' }, { timeoutMs: 5000 })
    await client('grpc-web+proto').greet({ name: 'x' }, { timeoutMs: 5000 })
    const { requests } = await stats('default')
    expect(requests.map((r) => [r.path, r.timeoutHeader])).toEqual([
      [`/${GREET_SERVICE}/Greet`, '5000'],
      [`/${GREET_SERVICE}/Greet`, '5000m'],
    ])
  })

  it('fails with the code and message asked for, INTERNAL when no code is named', async () => {
    for (const kind of KINDS) {
      const error = await client(kind, 'fail')
        .fail({ code: 'NOT_FOUND', message: 'no such prompt' })
        .catch((e: unknown) => e)
      expect(error, kind).toBeInstanceOf(ConnectError)
      expect((error as ConnectError).code, kind).toBe(Code.NotFound)
      expect((error as ConnectError).rawMessage, kind).toBe('no such prompt')
    }
    const failing = client('connect+json', 'fail')
    await expect(failing.fail({ message: 'boom' })).rejects.toMatchObject({ code: Code.Internal, rawMessage: 'boom' })
    await expect(failing.fail({ code: 'CANCELLED', message: 'gone' })).rejects.toMatchObject({ code: Code.Canceled })
    await expect(failing.fail({ code: 'NO_SUCH_CODE' })).rejects.toMatchObject({ code: Code.InvalidArgument })
  })

  it('sleeps, and stops sleeping when the client goes away', async () => {
    await reset('sleep')
    const sleeper = client('connect+json', 'sleep')
    expect((await sleeper.sleep({ ms: 20 })).sleptMs).toBe(20)

    const controller = new AbortController()
    const call = sleeper.sleep({ ms: 60_000 }, { signal: controller.signal }).catch((e: unknown) => e)
    expect((await busy('sleep')).inFlight).toBe(1)
    controller.abort()
    expect(ConnectError.from(await call).code).toBe(Code.Canceled)
    // Answers at once, not in a minute: the handler noticed and returned.
    const after = await idle('sleep')
    expect(after.inFlight).toBe(0)
    expect(after.requests.map((r) => r.method)).toEqual(['Sleep', 'Sleep'])
  })

  it('fails a sleep past the deadline with DEADLINE_EXCEEDED, and is idle after', async () => {
    await reset('deadline')
    for (const kind of KINDS) {
      const error = await client(kind, 'deadline')
        .sleep({ ms: 60_000 }, { timeoutMs: 50 })
        .catch((e: unknown) => e)
      expect(ConnectError.from(error).code, kind).toBe(Code.DeadlineExceeded)
    }
    expect((await idle('deadline')).inFlight).toBe(0)
  })

  it('answers Big with that many bytes', async () => {
    for (const kind of KINDS) {
      expect((await client(kind, 'big').big({ bytes: 200_000 })).data, kind).toBe('x'.repeat(200_000))
    }
  })

  it('streams Watch', async () => {
    for (const kind of KINDS) {
      const answers: string[] = []
      for await (const answer of client(kind, 'watch').watch({ name: 'w' })) answers.push(answer.greeting)
      expect(answers, kind).toEqual(Array(WATCH_ANSWERS).fill('Hello, w!'))
    }
    expect((await idle('watch')).inFlight).toBe(0)
  })

  it('records a method the service lacks (answered 404), with the protocol its content type names', async () => {
    await reset('missing')
    const types = ['application/json', 'application/grpc+proto', 'application/grpc-web-text']
    for (const contentType of types) {
      const res = await fetch(`${base('missing')}/${GREET_SERVICE}/Nope`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: '{}',
      })
      expect(res.status).toBe(404)
      await res.body?.cancel()
    }
    const { requests } = await idle('missing')
    expect(requests.map((r) => [r.path, r.method, r.contentType, r.protocol])).toEqual([
      [`/g/missing/${GREET_SERVICE}/Nope`, 'Nope', 'application/json', 'connect'],
      [`/g/missing/${GREET_SERVICE}/Nope`, 'Nope', 'application/grpc+proto', 'grpc'],
      [`/g/missing/${GREET_SERVICE}/Nope`, 'Nope', 'application/grpc-web-text', 'grpc-web'],
    ])
  })

  it('keeps groups apart and forgets a group on reset', async () => {
    await reset('kept')
    await reset('other')
    await client('connect+json', 'kept').greet({ name: 'k' })
    expect((await stats('kept')).requests).toHaveLength(1)
    expect(await stats('other')).toEqual({ requests: [], inFlight: 0, maxInFlight: 0 })

    await reset('kept')
    expect(await stats('kept')).toEqual({ requests: [], inFlight: 0, maxInFlight: 0 })
  })
})
