import { cancelBody, decodeText, guardedFetch, parseJson, readBody, shortReason, statusLine } from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { isObject } from '../json'
import { ToolError } from './arguments'

/**
 * gRPC's status codes as gRPC names them (doc/statuscodes.md), by number.
 * Connect names them the same in snake_case, CANCELLED spelled `canceled`.
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
const CONNECT_NAMES = STATUS_NAMES.map((name) => (name === 'CANCELLED' ? 'canceled' : name.toLowerCase()))
const UNKNOWN = 2
const PERMISSION_DENIED = 7
const UNIMPLEMENTED = 12
export const INTERNAL = 13
const UNAVAILABLE = 14
const UNAUTHENTICATED = 16

/**
 * The code of an HTTP error that carries no gRPC status, by gRPC's mapping
 * (doc/http-grpc-status-mapping.md), which the Connect protocol adopts.
 */
const HTTP_CODES: Readonly<Record<number, number>> = {
  400: INTERNAL,
  401: UNAUTHENTICATED,
  403: PERMISSION_DENIED,
  404: UNIMPLEMENTED,
  429: UNAVAILABLE,
  502: UNAVAILABLE,
  503: UNAVAILABLE,
  504: UNAVAILABLE,
}

/**
 * A call that ended in a status other than OK, named as gRPC names it: the
 * server's, or one a client makes up, as gRPC's clients do, for an answer
 * that breaks the protocol (INTERNAL for a message that does not decode,
 * UNIMPLEMENTED for a unary answer without its message, the HTTP status's
 * code for an error page). The server's message can echo the call's
 * arguments: it goes to the caller's warning only, in short.
 */
export class GrpcStatusError extends ToolError {
  constructor(code: number, serverMessage: string) {
    super(`answered gRPC status ${STATUS_NAMES[code] ?? 'UNKNOWN'}`, shortReason(serverMessage))
  }
}

/** One unary call, its request message already encoded. */
export interface UnaryRequest {
  /** The method's URL: the server's base URL, then `/package.Service/Method`. */
  url: URL
  protocol: 'connect' | 'grpc-web'
  /** Binary protobuf on the wire; else proto3 JSON. */
  binary: boolean
  message: Uint8Array
  /** What the server is told the call may take, in milliseconds. */
  timeoutMs: number
}

/**
 * Makes one unary call over the Connect protocol (connectrpc.com/docs/protocol)
 * or gRPC-Web (grpc/doc/PROTOCOL-WEB.md), both of which run over HTTP/1.1,
 * which a Worker's fetch speaks (native gRPC needs HTTP/2 trailers). The
 * request goes through the guarded fetch (the allow-list judges every
 * redirect) and the answer is read within `limit` before anything parses it.
 * The answer is the response message's bytes; a status other than OK
 * throws a GrpcStatusError, and what fails on our side (a refused redirect,
 * an answer too big, the network) throws its own error.
 */
export async function callUnary(
  request: UnaryRequest,
  policy: EgressPolicy,
  limit: ByteLimit,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const web = request.protocol === 'grpc-web'
  const codec = request.binary ? 'proto' : 'json'
  const headers = new Headers(
    web
      ? {
          'content-type': `application/grpc-web+${codec}`,
          'x-grpc-web': '1',
          'grpc-timeout': grpcTimeout(request.timeoutMs),
        }
      : {
          'content-type': `application/${codec}`,
          'connect-protocol-version': '1',
          // The protocol allows 10 digits: 115 days, longer than anything waits.
          'connect-timeout-ms': String(Math.min(request.timeoutMs, 9_999_999_999)),
        },
  )
  const body = web ? frame(request.message) : request.message
  const response = await guardedFetch(request.url, { method: 'POST', headers, body, signal }, policy)
  return web
    ? webAnswer(response, request.binary, limit, signal)
    : connectAnswer(response, request.binary, limit, signal)
}

/** gRPC's timeout has at most 8 digits: a longer one is sent in a coarser unit, rounded up. */
function grpcTimeout(ms: number): string {
  for (const [unit, per] of [
    ['m', 1],
    ['S', 1000],
    ['M', 60_000],
  ] as const) {
    const count = Math.ceil(ms / per)
    if (count <= 99_999_999) return `${count}${unit}`
  }
  return `${Math.min(Math.ceil(ms / 3_600_000), 99_999_999)}H`
}

/** Connect's unary content types (`application/proto`, `application/json`) and its streaming ones. */
const CONNECT_TYPE = /^application\/(connect\+)?(?:(json)(?:; ?charset=utf-?8)?|proto)$/i

/**
 * A Connect unary answer: HTTP 200 with the message as the whole body, or
 * an error, whose JSON body `{code, message, details}` names the status in
 * snake_case. What an error body lacks (a proxy's page has neither) is
 * told by the HTTP status: the code by gRPC's mapping, the message by the
 * status line.
 */
async function connectAnswer(
  response: Response,
  binary: boolean,
  limit: ByteLimit,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const type = response.headers.get('content-type')
  const parsed = CONNECT_TYPE.exec(type ?? '')
  const json = parsed !== null && parsed[2] !== undefined
  if (response.status !== 200) {
    let error: Record<string, unknown> = {}
    if (json) error = errorBody(await readBody(response, limit, signal))
    else await cancelBody(response)
    const code = CONNECT_NAMES.indexOf(typeof error.code === 'string' ? error.code : '')
    throw new GrpcStatusError(
      code > 0 ? code : (HTTP_CODES[response.status] ?? UNKNOWN),
      typeof error.message === 'string' ? error.message : statusLine(response),
    )
  }
  if (parsed === null || parsed[1] !== undefined || json === binary) {
    await cancelBody(response)
    // Connect's other codec or its streaming form is the server's mistake; any other type, not Connect at all.
    throw new GrpcStatusError(parsed === null ? UNKNOWN : INTERNAL, `unsupported content type ${type}`)
  }
  return readBody(response, limit, signal)
}

/** A Connect error body's members, or none when it is not a JSON object. */
function errorBody(bytes: Uint8Array): Record<string, unknown> {
  try {
    const value = parseJson(decodeText(bytes))
    return isObject(value) ? value : {}
  } catch {
    return {}
  }
}

/** gRPC-Web's content types; `-text` (base64 frames, for XMLHttpRequest) is one it may answer but we never ask for. */
const WEB_TYPE = /^application\/grpc-web(-text)?(?:\+(?:(json)(?:; ?charset=utf-?8)?|proto))?$/i
const DATA = 0x00
const COMPRESSED = 0x01
const TRAILERS = 0x80

/** What an answer's status is read from: its trailers, or its HTTP headers (trailers-only). */
interface Fields {
  get(name: string): string | null | undefined
}

/**
 * A gRPC-Web unary answer: frames of one message and then the trailers,
 * which carry the status; or, for an immediate error, no body and the
 * status in the HTTP headers (trailers-only). An HTTP error without a
 * status is told by gRPC's mapping of its HTTP status, as for Connect.
 */
async function webAnswer(
  response: Response,
  binary: boolean,
  limit: ByteLimit,
  signal: AbortSignal,
): Promise<Uint8Array> {
  if (response.status < 200 || response.status > 299) {
    await cancelBody(response)
    const message = response.headers.get('grpc-message')
    throw new GrpcStatusError(
      HTTP_CODES[response.status] ?? UNKNOWN,
      message === null ? statusLine(response) : percentDecoded(message),
    )
  }
  // A status other than OK in the headers is final, whatever the body and its type.
  if ((response.headers.get('grpc-status') ?? '0') !== '0') {
    await cancelBody(response)
    throwStatus(response.headers)
  }
  const type = response.headers.get('content-type')
  const parsed = WEB_TYPE.exec(type ?? '')
  if (parsed === null || parsed[1] !== undefined || (parsed[2] === undefined) !== binary) {
    await cancelBody(response)
    throw new GrpcStatusError(parsed === null ? UNKNOWN : INTERNAL, `unsupported content type ${type}`)
  }
  const { message, trailers } = unframe(await readBody(response, limit, signal))
  const fields = trailers?.has('grpc-status') ? trailers : response.headers
  if (fields.get('grpc-status') !== '0') throwStatus(fields)
  if (message === undefined) {
    throw new GrpcStatusError(UNIMPLEMENTED, 'protocol error: missing output message for unary method')
  }
  return message
}

/** The status the fields hold, not OK, thrown; a missing one is the server's mistake. */
function throwStatus(fields: Fields): never {
  const status = fields.get('grpc-status')
  if (status == null) throw new GrpcStatusError(INTERNAL, 'protocol error: missing status')
  const code = /^\d{1,2}$/.test(status) ? Number(status) : -1
  if (code < 1 || code >= STATUS_NAMES.length) throw new GrpcStatusError(INTERNAL, `invalid grpc-status: ${status}`)
  throw new GrpcStatusError(code, percentDecoded(fields.get('grpc-message') ?? ''))
}

/**
 * grpc-message is percent-encoded UTF-8; one that does not decode is kept
 * as it came, as gRPC asks of clients rather than losing the message.
 */
function percentDecoded(message: string): string {
  try {
    return decodeURIComponent(message)
  } catch {
    return message
  }
}

/** A message as one data frame: a flag byte, its length in 4 bytes big-endian, the message. */
function frame(message: Uint8Array): Uint8Array {
  const framed = new Uint8Array(5 + message.byteLength)
  framed[0] = DATA
  new DataView(framed.buffer).setUint32(1, message.byteLength)
  framed.set(message, 5)
  return framed
}

/** A unary answer's frames: at most one message, and at most one set of trailers. */
function unframe(body: Uint8Array): { message?: Uint8Array; trailers?: Map<string, string> } {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength)
  let message: Uint8Array | undefined
  let trailers: Map<string, string> | undefined
  for (let at = 0; at < body.byteLength;) {
    const end = body.byteLength - at < 5 ? Infinity : at + 5 + view.getUint32(at + 1)
    if (end > body.byteLength) throw new GrpcStatusError(INTERNAL, 'protocol error: incomplete frame')
    const flags = view.getUint8(at)
    const data = body.subarray(at + 5, end)
    at = end
    if (flags & COMPRESSED) {
      // Nothing asked the server to compress (no grpc-accept-encoding).
      throw new GrpcStatusError(INTERNAL, 'protocol error: received unsupported compressed output')
    }
    if (flags & TRAILERS) {
      if (trailers) throw new GrpcStatusError(UNIMPLEMENTED, 'protocol error: received extra trailers')
      trailers = trailerFields(data)
    } else {
      if (message) throw new GrpcStatusError(UNIMPLEMENTED, 'protocol error: received extra output message')
      message = data
    }
  }
  return { message, trailers }
}

/** Trailers as gRPC-Web writes them, `name: value` lines ending in CRLF; names are case-insensitive. */
function trailerFields(data: Uint8Array): Map<string, string> {
  const fields = new Map<string, string>()
  for (const line of decodeText(data).split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  return fields
}
