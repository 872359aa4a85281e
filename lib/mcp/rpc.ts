/**
 * JSON-RPC 2.0, as MCP frames its messages: what a message is, the error
 * codes, and one error type a method throws to answer with an error.
 */
import { isObject } from '../json'
import { redact } from '../redact'
import type { RequestId, RpcAnswer } from './protocol'

/** JSON-RPC's codes, and MCP's for a resource that does not exist. */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  RESOURCE_NOT_FOUND: -32002,
} as const

export type { RequestId }

/** A request (with an id: it gets an answer) or a notification (without). */
export interface RpcMessage {
  method: string
  params: Record<string, unknown>
  id?: RequestId
}

export type { RpcAnswer }

/** What a method throws to answer with a JSON-RPC error. */
export class RpcError extends Error {
  override readonly name = 'RpcError'

  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message)
  }
}

/** A JSON value as a message; an RpcError (INVALID_REQUEST) saying what is wrong with it, and its id when it has one. */
export function asMessage(value: unknown): RpcMessage | { invalid: RpcError; id: RequestId | null } {
  const id = isObject(value) && isRequestId(value.id) ? value.id : null
  if (!isObject(value) || value.jsonrpc !== '2.0') {
    return { invalid: new RpcError(RPC.INVALID_REQUEST, 'a message must be a JSON-RPC 2.0 object'), id }
  }
  if ('id' in value && !isRequestId(value.id)) {
    return { invalid: new RpcError(RPC.INVALID_REQUEST, 'a request id must be a string or an integer'), id: null }
  }
  if (typeof value.method !== 'string') {
    // A response from the client (to a request this server never sends): nothing to answer.
    if ('result' in value || 'error' in value) return { method: '', params: {} }
    return { invalid: new RpcError(RPC.INVALID_REQUEST, 'a message must name its method'), id }
  }
  if (value.params !== undefined && !isObject(value.params)) {
    return { invalid: new RpcError(RPC.INVALID_PARAMS, 'params must be an object'), id }
  }
  const message: RpcMessage = { method: value.method, params: value.params ?? {} }
  if (id !== null) message.id = id
  return message
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))
}

export function result(id: RequestId | null, value: unknown): RpcAnswer {
  return { jsonrpc: '2.0', id, result: value }
}

/** An error answer; its message may quote an upstream (a provider, a tool), so it is redacted of our secrets. */
export function failure(id: RequestId | null, e: RpcError): RpcAnswer {
  const message = redact(e.message)
  const error = e.data === undefined ? { code: e.code, message } : { code: e.code, message, data: e.data }
  return { jsonrpc: '2.0', id, error }
}

/** A param that must be a string. */
export function stringParam(params: Record<string, unknown>, name: string): string {
  const value = params[name]
  if (typeof value !== 'string') throw new RpcError(RPC.INVALID_PARAMS, `params.${name} must be a string`)
  return value
}

/** A param that must be an object when given: `{}` when not. */
export function objectParam(params: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = params[name]
  if (value === undefined || value === null) return {}
  if (!isObject(value)) throw new RpcError(RPC.INVALID_PARAMS, `params.${name} must be an object`)
  return value
}

/** Thrown by a method whose answer cannot fit in the room left in the POST's answer: it is refused, as one past it is. */
export class NoRoom extends Error {}
