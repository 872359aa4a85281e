/**
 * Calls of grpc tools, through connect-web's Connect and gRPC-Web
 * transports, which run over HTTP/1.1, as a Worker's fetch does (native
 * gRPC needs HTTP/2 trailers). Only session.ts imports this module, and
 * only by import(), with the first grpc call: protobuf and connect-web cost
 * a Worker's start what a render without grpc tools need not pay.
 */
import { fromJson, toJson } from '@bufbuild/protobuf'
import type { JsonValue } from '@bufbuild/protobuf'
import { ConnectError } from '@connectrpc/connect'
import type { Interceptor } from '@connectrpc/connect'
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-web'
import { grpcMethodOf } from '../catalog'
import type { GrpcToolRecord } from '../catalog'
import { guardedFetch, readBody, shortReason, statusLine } from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { ArgumentError, ToolError } from './arguments'
import type { Params } from './arguments'
import { describeError } from '../log'

/**
 * gRPC's status codes as gRPC names them (doc/statuscodes.md), by number,
 * which connect's Code numbers alike (it spells them otherwise: Canceled).
 */
const STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const

/**
 * A call that ended in a status other than OK, named as gRPC names it: the
 * server's, or one connect-web makes up, as gRPC's clients do, for an
 * answer that breaks the protocol. The server's message can echo the
 * call's arguments: it goes to the caller's warning only, in short.
 */
class GrpcStatusError extends ToolError {
  constructor(code: number, serverMessage: string) {
    super(`answered gRPC status ${STATUS_NAMES[code] ?? 'UNKNOWN'}`, shortReason(serverMessage))
  }
}

/**
 * Calls the unary method a grpc record names, at `url`, with `params` as
 * its request message in proto3 JSON form: a parameter the message has no
 * field for, or of the wrong type, fails the call before any request, as an
 * argument error. The message goes as the method's codec says: binary
 * protobuf with a descriptor, else Connect's JSON. The answer is the
 * response message in proto3 JSON form, fields left at their defaults
 * included, so a template can walk any field. A gRPC status is a failure
 * named by its code (NOT_FOUND, UNAVAILABLE...); what fails on our side (a
 * refused redirect, an answer past `limit`, the network) fails in its own
 * words, and the render's deadline or the call's timeout as the session
 * says them.
 */
export async function callGrpc(
  record: GrpcToolRecord,
  params: Params,
  url: URL,
  policy: EgressPolicy,
  limit: ByteLimit,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<unknown> {
  const { method, binary } = await grpcMethodOf(record)
  let input: ReturnType<typeof fromJson>
  try {
    input = fromJson(method.input, params as JsonValue)
  } catch (e) {
    // protobuf-es names the message and the field: `cannot decode message greet.v1.GreetRequest from JSON: ...`.
    throw new ArgumentError(`invalid arguments: ${describeError(e)}`)
  }
  const web = record.grpc.protocol === 'grpc-web'
  const wire = new Wire(policy, limit, signal)
  const base = new URL(url)
  base.search = ''
  base.hash = ''
  // connect-web appends `/package.Service/Method` to the base URL as text: a query the URL carries goes after it.
  const keepQuery: Interceptor = (next) => (req) => next({ ...req, url: req.url + url.search })
  const options = { baseUrl: base.href, useBinaryFormat: binary, fetch: wire.fetch, interceptors: [keepQuery] }
  const transport = web ? createGrpcWebTransport(options) : createConnectTransport(options)
  try {
    // No timeoutMs for connect-web: the session's signal is the call's deadline (see timeoutHeader).
    const answer = await transport.unary(method, signal, undefined, timeoutHeader(web, timeoutMs), input)
    return toJson(method.output, answer.message, { alwaysEmitImplicit: true })
  } catch (e) {
    if (signal.aborted) throw signal.reason
    if (wire.failure !== undefined) throw wire.failure
    throw e instanceof ConnectError ? new GrpcStatusError(e.code, wire.serverMessage(e.rawMessage)) : e
  }
}

/**
 * What the server is told the call may take, in the protocol's header.
 * Written here rather than by connect-web from a timeoutMs, which would
 * also arm a deadline of its own racing the session's (whose timeout is
 * said as such), and which writes gRPC's grpc-timeout past the 8 digits
 * gRPC allows: a longer one goes in a coarser unit, rounded up. Connect
 * allows 10 digits, 115 days, longer than anything waits.
 */
function timeoutHeader(web: boolean, ms: number): Record<string, string> {
  if (!web) return { 'connect-timeout-ms': String(Math.min(ms, 9_999_999_999)) }
  for (const [unit, per] of [
    ['m', 1],
    ['S', 1000],
    ['M', 60_000],
  ] as const) {
    const count = Math.ceil(ms / per)
    if (count <= 99_999_999) return { 'grpc-timeout': `${count}${unit}` }
  }
  return { 'grpc-timeout': `${Math.min(Math.ceil(ms / 3_600_000), 99_999_999)}H` }
}

/** Statuses whose answer has no body, which a Response cannot be built with. */
const NULL_BODY = new Set([204, 205, 304])

/**
 * The fetch connect-web is given for one call: the guarded fetch (the
 * allow-list judges every redirect), then the answer read within `limit`
 * before connect-web parses any of it. It keeps what a failure is told by:
 * its own failure, which is the call's, and the answer's status line.
 */
class Wire {
  failure: unknown
  #answer: Response | undefined

  constructor(
    readonly policy: EgressPolicy,
    readonly limit: ByteLimit,
    /** The call's: connect-web passes its own, tied to it, which it also aborts once done. */
    readonly signal: AbortSignal,
  ) {}

  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    try {
      const signal = init?.signal ?? this.signal
      const request = {
        method: init?.method ?? 'POST',
        headers: new Headers(init?.headers),
        // connect-web's unary calls send their message as bytes.
        body: (init?.body ?? undefined) as Uint8Array | undefined,
        signal,
      }
      const response = await guardedFetch(new URL(input instanceof Request ? input.url : input), request, this.policy)
      this.#answer = response
      const body = await readBody(response, this.limit, signal)
      const { status, statusText } = response
      return new Response(NULL_BODY.has(status) ? null : body, {
        status,
        statusText,
        headers: withDecodableMessage(response.headers),
      })
    } catch (e) {
      this.failure = e
      throw e
    }
  }

  /**
   * The server's message, or the HTTP status line where it has none:
   * connect-web says an HTTP error without a status of its own as `HTTP
   * 502`, and a Connect error body without a message as no message.
   */
  serverMessage(message: string): string {
    const answer = this.#answer
    if (!answer || answer.ok || (message !== '' && message !== `HTTP ${answer.status}`)) return message
    return statusLine(answer)
  }
}

/**
 * The answer's headers, a grpc-message that does not percent-decode
 * escaped so that connect-web, which would fail on it, decodes it to the
 * text that came: gRPC asks clients to keep such a message rather than lose it.
 */
function withDecodableMessage(headers: Headers): Headers {
  const out = new Headers(headers)
  const message = headers.get('grpc-message')
  if (message !== null) {
    try {
      decodeURIComponent(message)
    } catch {
      out.set('grpc-message', encodeURIComponent(message))
    }
  }
  return out
}
