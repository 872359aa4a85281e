/**
 * Helpers for JSON values whose member names come from data (Redis keys,
 * parameter names). Such a name may be `__proto__` or `constructor`: read and
 * write own properties only, never the prototype chain.
 */
export type JsonObject = { [key: string]: unknown }

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function ownValue(node: JsonObject, name: string): unknown {
  return Object.hasOwn(node, name) ? node[name] : undefined
}

export function setOwn(node: JsonObject, name: string, value: unknown): void {
  Object.defineProperty(node, name, { value, enumerable: true, writable: true, configurable: true })
}
