import type { ParametersSchema } from '../catalog'
import { MAX_JSON_DEPTH, isObject, nestedDeeperThan, setOwn } from '../json'
import type { JsonObject } from '../json'
import { clip } from '../errors'
import { RPC, RpcError } from './rpc'

/** At most this many characters of a bad argument are quoted back. */
const QUOTED = 64
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/

/**
 * A prompt's args from MCP's prompt arguments, which are all strings: each
 * converted to its parameter's declared JSON Schema type (integer, number,
 * boolean, object, array; a string, or an undeclared or untyped one, as it
 * is). A value that does not convert is InvalidParams naming the argument;
 * what the schema says beyond the type is the render's args check.
 */
export function promptArgs(schema: ParametersSchema, given: Record<string, unknown>): JsonObject {
  const args: JsonObject = {}
  for (const [name, value] of Object.entries(given)) {
    if (typeof value !== 'string') throw invalid(name, 'must be a string, as MCP prompt arguments are')
    const declared = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined
    setOwn(args, name, converted(name, value, isObject(declared) ? declared.type : undefined))
  }
  return args
}

function converted(name: string, text: string, type: unknown): unknown {
  switch (type) {
    case 'integer':
      if (/^-?\d+$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text)
      throw invalid(name, `must be an integer, got ${quote(text)}`)
    case 'number': {
      // A decimal as JSON writes one: Number() would also take hex, binary and blanks around it.
      const n = Number(text)
      if (DECIMAL.test(text) && Number.isFinite(n)) return n
      throw invalid(name, `must be a number, got ${quote(text)}`)
    }
    case 'boolean':
      if (text === 'true' || text === 'false') return text === 'true'
      throw invalid(name, `must be true or false, got ${quote(text)}`)
    case 'object':
    case 'array': {
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        throw invalid(name, `must be ${type === 'object' ? 'a JSON object' : 'a JSON array'}, got ${quote(text)}`)
      }
      if (nestedDeeperThan(value)) throw invalid(name, `is nested deeper than ${MAX_JSON_DEPTH} levels`)
      if (type === 'array' ? Array.isArray(value) : isObject(value)) return value
      throw invalid(name, `must be ${type === 'object' ? 'a JSON object' : 'a JSON array'}, got ${quote(text)}`)
    }
    default:
      return text
  }
}

function invalid(name: string, problem: string): RpcError {
  const shown = clip(name, QUOTED)
  return new RpcError(RPC.INVALID_PARAMS, `argument '${shown}' ${problem}`, { code: 'INVALID_ARGS', argument: shown })
}

function quote(text: string): string {
  return JSON.stringify(clip(text, QUOTED))
}
