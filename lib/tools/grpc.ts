import { fromJson, toJson } from '@bufbuild/protobuf'
import type { JsonValue } from '@bufbuild/protobuf'
import { Code, ConnectError } from '@connectrpc/connect'
import type { Transport } from '@connectrpc/connect'
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-web'
import { grpcMethodOf } from '../catalog'
import type { GrpcMethod, GrpcToolRecord } from '../catalog'
import { guardedFetch, readBody, shortReason } from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { ArgumentError, ToolError } from './arguments'
import type { Params } from './arguments'

/** A call of a grpc tool, made ready before anything is sent. */
export interface GrpcCall {
  url: URL
  protocol: 'connect' | 'grpc-web'
  method: GrpcMethod
  /** The request message, from the parameters in proto3 JSON form. */
  input: ReturnType<typeof fromJson>
}

/**
 * The request a grpc record and its parameters make: a parameter the request
 * message has no field for, or of the wrong type, fails the call before any
 * request, as an argument error.
 */
export function grpcCall(record: GrpcToolRecord, params: Params, url: URL): GrpcCall {
  const method = grpcMethodOf(record)
  let input: GrpcCall['input']
  try {
    input = fromJson(method.method.input, params as JsonValue)
  } catch (e) {
    // protobuf-es names the message and the field: `cannot decode message greet.v1.GreetRequest from JSON: ...`.
    throw new ArgumentError(`invalid arguments: ${e instanceof Error ? e.message : String(e)}`)
  }
  return { url, protocol: record.grpc.protocol ?? 'connect', method, input }
}

/**
 * Calls a unary method with connect-web's transports over the guarded fetch
 * (the allow-list judges every redirect; answers are read within the byte
 * limit). The server is told the call's timeout (`connect-timeout-ms`,
 * `grpc-timeout`). The answer is the response message in proto3 JSON form,
 * fields left at their defaults included, so a template can walk any field.
 * A gRPC status is a failure named by its code (NOT_FOUND, UNAVAILABLE...).
 */
export async function callGrpc(
  call: GrpcCall,
  policy: EgressPolicy,
  limit: ByteLimit,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<unknown> {
  const transport = transportFor(call, policy, limit, signal)
  try {
    const answer = await transport.unary(call.method.method, signal, timeoutMs, undefined, call.input)
    return toJson(call.method.method.output, answer.message, { alwaysEmitImplicit: true })
  } catch (e) {
    // The render's deadline or the call's own timeout: said by the session, as for every tool.
    if (signal.aborted) throw signal.reason
    throw asToolFailure(e)
  }
}

function transportFor(call: GrpcCall, policy: EgressPolicy, limit: ByteLimit, signal: AbortSignal): Transport {
  const options = {
    baseUrl: call.url.href.replace(/\/+$/, ''),
    useBinaryFormat: call.method.binary,
    fetch: boundedFetch(policy, limit, signal),
  }
  return call.protocol === 'grpc-web' ? createGrpcWebTransport(options) : createConnectTransport(options)
}

/**
 * The fetch the transports use: the guarded fetch, with only what workerd
 * accepts of their options (not `mode` or `credentials`, and redirects by
 * hand: workerd refuses their `redirect: 'error'`), and the answer's body
 * read within the limit before the transport parses it. The transport's
 * signal carries the call's; the call's stands in if it sends none.
 */
function boundedFetch(policy: EgressPolicy, limit: ByteLimit, callSignal: AbortSignal): typeof fetch {
  return async (input, init) => {
    const signal = init?.signal ?? callSignal
    const body = init?.body
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new Error('a gRPC transport sent a body that is not bytes')
    }
    const url = new URL(input instanceof Request ? input.url : String(input))
    const response = await guardedFetch(
      url,
      { method: init?.method ?? 'GET', headers: new Headers(init?.headers), body: body ?? undefined, signal },
      policy,
    )
    const bytes = await readBody(response, limit, signal)
    const empty = response.status === 204 || response.status === 205 || response.status === 304
    return new Response(empty ? null : bytes, { status: response.status, headers: response.headers })
  }
}

/**
 * A failure worded for the warning: a gRPC status by its canonical name and
 * the server's message; a failure of our own making (a refused redirect, an
 * answer too big, the network) by its own words.
 */
function asToolFailure(e: unknown): Error {
  const error = ConnectError.from(e)
  if (error.cause instanceof Error && !(error.cause instanceof ConnectError)) return error.cause
  return new ToolError(`answered gRPC status ${statusName(error.code)}`, shortReason(error.rawMessage))
}

/** `NotFound` as gRPC names it: NOT_FOUND (and Canceled, CANCELLED). */
function statusName(code: Code): string {
  if (code === Code.Canceled) return 'CANCELLED'
  return (Code[code] ?? 'Unknown').replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()
}
