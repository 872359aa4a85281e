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
 * How deep JSON data may nest, in arrays and objects (`[]` is one level,
 * `[[]]` two): request bodies and stored records alike. Everything that
 * walks such data by recursion (validators, clones, formatting) stays far
 * from the stack's limit below it.
 */
export const MAX_JSON_DEPTH = 100

/**
 * Whether `value` nests arrays and objects more than `limit` levels deep.
 * Iterative, so a value nested a million levels costs no stack, and it stops
 * at the first container past the limit.
 */
export function nestedDeeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const pending: [node: object, depth: number][] = isContainer(value) ? [[value, 1]] : []
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [object, number]
    if (depth > limit) return true
    for (const member of Object.values(node)) if (isContainer(member)) pending.push([member, depth + 1])
  }
  return false
}

const [QUOTE, BACKSLASH, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE] = Array.from('"\\[]{}', (c) =>
  c.charCodeAt(0),
)

/**
 * Whether the JSON `text` (valid JSON) nests arrays and objects more than
 * `limit` levels deep, as nestedDeeperThan would find of its parse: read
 * from the characters in one pass, which costs a fraction of walking a
 * parsed object of many members.
 */
export function textNestedDeeperThan(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      // A string: to its closing quote, past escaped characters.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === BACKSLASH) i++
        else if (d === QUOTE) break
      }
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > limit) return true
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--
  }
  return false
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null
}

/**
 * Freezes a parsed JSON value all the way down, so that one shared between
 * requests cannot be changed by any of them. Iterative: the depth of the
 * value costs no stack.
 */
export function deepFreeze<T>(value: T): T {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const node = pending.pop()
    if (!isContainer(node) || Object.isFrozen(node)) continue
    Object.freeze(node)
    for (const member of Object.values(node)) if (isContainer(member)) pending.push(member)
  }
  return value
}

export function setOwn(node: JsonObject, name: string, value: unknown): void {
  // Only `__proto__` is an accessor an assignment would call (every other member of Object.prototype is data,
  // which an assignment shadows with an own member); defining each member instead costs several times as much.
  if (name === '__proto__')
    Object.defineProperty(node, name, { value, enumerable: true, writable: true, configurable: true })
  else node[name] = value
}

/**
 * The start of `value`'s JSON (as JSON.stringify writes it), at most
 * `maxChars` characters, and whether that is all of it. JSON.stringify
 * would write the whole value first: this stops once past `maxChars`, so
 * its work is bounded by the answer's size, not the value's. Recursive,
 * for values already bounded to MAX_JSON_DEPTH (records, request bodies).
 */
export function jsonPrefix(value: unknown, maxChars: number): { text: string; whole: boolean } {
  let out = ''
  /** Appends `piece`; true once past maxChars, when the walk stops. */
  const write = (piece: string) => (out += piece).length > maxChars
  const visit = (node: unknown): boolean => {
    if (typeof node === 'string')
      return write(JSON.stringify(node.length > maxChars ? node.slice(0, maxChars + 1) : node))
    if (node === null || typeof node !== 'object') return write(JSON.stringify(node) ?? 'null')
    if (Array.isArray(node)) {
      if (write('[')) return true
      for (let i = 0; i < node.length; i++) {
        if ((i > 0 && write(',')) || visit(node[i] ?? null)) return true
      }
      return write(']')
    }
    if (write('{')) return true
    let first = true
    for (const name in node) {
      const member: unknown = (node as JsonObject)[name]
      if (!Object.hasOwn(node, name) || member === undefined) continue
      if (write(`${first ? '' : ','}${JSON.stringify(name)}:`) || visit(member)) return true
      first = false
    }
    return write('}')
  }
  const stopped = visit(value)
  return { text: out.slice(0, maxChars), whole: !stopped }
}
