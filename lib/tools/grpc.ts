import { fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf'
import type { JsonValue } from '@bufbuild/protobuf'
import { grpcMethodOf } from '../catalog'
import type { GrpcMethod, GrpcToolRecord } from '../catalog'
import { decodeText, parseJson } from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { ArgumentError } from './arguments'
import type { Params } from './arguments'
import { GrpcStatusError, INTERNAL, callUnary } from './grpc-wire'

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
 * Calls a unary method over Connect or gRPC-Web (grpc-wire.ts), with the
 * request message encoded as the method's codec says: binary protobuf with
 * a descriptor, else proto3 JSON. The server is told the call's timeout.
 * The answer is the response message in proto3 JSON form, fields left at
 * their defaults included, so a template can walk any field. A gRPC status
 * is a failure named by its code (NOT_FOUND, UNAVAILABLE...).
 */
export async function callGrpc(
  call: GrpcCall,
  policy: EgressPolicy,
  limit: ByteLimit,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<unknown> {
  const { method, binary } = call.method
  try {
    const message = binary
      ? toBinary(method.input, call.input)
      : new TextEncoder().encode(JSON.stringify(toJson(method.input, call.input)))
    const url = new URL(call.url)
    // The method's path after the base URL's, so that a query the base URL carries stays a query.
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/${method.parent.typeName}/${method.name}`
    const answer = await callUnary({ url, protocol: call.protocol, binary, message, timeoutMs }, policy, limit, signal)
    return toJson(method.output, decoded(call.method, answer), { alwaysEmitImplicit: true })
  } catch (e) {
    // The render's deadline or the call's own timeout: said by the session, as for every tool.
    if (signal.aborted) throw signal.reason
    throw e
  }
}

/**
 * The response message from its bytes. One that does not decode is
 * INTERNAL, as gRPC's clients report it; unknown JSON fields are let be,
 * as Connect's clients let them be (a newer server may add fields).
 */
function decoded({ method, binary }: GrpcMethod, bytes: Uint8Array) {
  try {
    if (binary) return fromBinary(method.output, bytes)
    return fromJson(method.output, parseJson(decodeText(bytes)) as JsonValue, { ignoreUnknownFields: true })
  } catch (e) {
    throw new GrpcStatusError(
      INTERNAL,
      `parse ${binary ? 'binary' : 'json'}: ${e instanceof Error ? e.message : String(e)}`,
    )
  }
}
