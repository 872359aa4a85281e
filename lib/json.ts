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

/**
 * Freezes a parsed JSON value all the way down, so that one shared between
 * requests cannot be changed by any of them.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const member of Object.values(value)) deepFreeze(member)
  }
  return value
}

export function setOwn(node: JsonObject, name: string, value: unknown): void {
  Object.defineProperty(node, name, { value, enumerable: true, writable: true, configurable: true })
}
