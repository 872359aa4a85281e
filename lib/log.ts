import { AsyncLocalStorage } from 'node:async_hooks'
import { setOwn } from './json'
import { redactedHead } from './redact'

/**
 * Structured logging: one JSON object per line, so that Workers Logs and
 * `wrangler tail` can filter on fields. Callers pass facts, never secrets or
 * argument values; what an upstream said may still hold one, so every string
 * of a line is redacted (lib/redact.ts).
 *
 * During a request, everything logged belongs to that request's one line
 * (see RequestLog): a warning deep in the catalogue becomes an entry of the
 * line's `events`, so a request never scatters its story over several lines.
 * Outside a request (the CLI, the benchmarks, work left running after the
 * answer was sent) each call writes its own line.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Record<string, unknown>

/** Entries a list field (`tools`, `events`) keeps; past them the line counts the rest (`tools_total`). */
export const MAX_LIST_ENTRIES = 20
/** How far a value of a line goes: characters of a string, items of a list, members of an object, depth of nesting. */
interface Bounds {
  chars: number
  items: number
  members: number
  depth: number
}

/** A reason, a message, a stack: a few hundred characters. */
const LINE_BOUNDS: Bounds = { chars: 400, items: MAX_LIST_ENTRIES, members: 24, depth: 4 }
/** Each value within its bounds, many of them together can still be long: past this, the line is told tighter. */
const MAX_LINE_CHARS = 8 * 1024
const TIGHT_BOUNDS: Bounds = { chars: 80, items: 5, members: 6, depth: 3 }
/** The `debug` field (args, rendered prompts), which LOG_DEBUG turns on in development only: more, still bounded. */
const DEBUG_BOUNDS: Bounds = { chars: 4096, items: 100, members: 100, depth: 8 }

function emit(level: Level, msg: string, fields: LogFields, debug?: LogFields): void {
  const entry = (bounds: Bounds) => ({
    level,
    msg: bounded(msg, bounds, 0),
    ...(bounded(fields, bounds, 0) as LogFields),
  })
  let told = entry(LINE_BOUNDS)
  let line = JSON.stringify(told)
  if (line.length > MAX_LINE_CHARS) line = JSON.stringify((told = entry(TIGHT_BOUNDS)))
  if (debug) line = JSON.stringify({ ...told, debug: bounded(debug, DEBUG_BOUNDS, 1) })
  if (level === 'error') console.error(line)
  else if (level === 'warn') console.warn(line)
  else console.log(line)
}

/**
 * A value cut to a line's bounds, so that no caller can make a line large:
 * a string, list, object or nesting past its bound ends with a mark that
 * says so. The line's own fields (depth 0) are never cut. Every string is
 * redacted.
 */
function bounded(value: unknown, bounds: Bounds, depth: number): unknown {
  if (typeof value === 'string') {
    const { head, cut } = redactedHead(value, bounds.chars)
    return cut || head.length > bounds.chars ? `${head.slice(0, bounds.chars)}… (${value.length} chars)` : head
  }
  if (typeof value !== 'object' || value === null) return value
  if (depth === bounds.depth) return '…'
  if (Array.isArray(value)) {
    const items = value.slice(0, bounds.items).map((v) => bounded(v, bounds, depth + 1))
    return value.length > bounds.items ? [...items, `… ${value.length - bounds.items} more`] : items
  }
  const entries = Object.entries(value)
  const kept = depth === 0 ? entries : entries.slice(0, bounds.members)
  const out: LogFields = {}
  // Own members only: a name from data may be __proto__.
  for (const [k, v] of kept) setOwn(out, bounded(k, bounds, depth) as string, bounded(v, bounds, depth + 1))
  if (entries.length > kept.length) setOwn(out, '…', `${entries.length - kept.length} more`)
  return out
}

/**
 * A list field of a line: its first entries, and the count of all of them
 * by their `outcome` (a tool call) or `level` (an event).
 */
class BoundedList {
  readonly entries: LogFields[] = []
  readonly totals: Record<string, number> = {}
  #count = 0

  add(item: LogFields): void {
    this.#count++
    const kind = String(item.outcome ?? item.level ?? 'entries')
    this.totals[kind] = (this.totals[kind] ?? 0) + 1
    if (this.entries.length < MAX_LIST_ENTRIES) this.entries.push(item)
  }

  /** The list as the line carries it: `name`, and `name_total` once entries were left out. */
  fields(name: string): LogFields {
    const total = this.#count > this.entries.length ? { [`${name}_total`]: this.totals } : {}
    return { [name]: this.entries, ...total }
  }
}

const scope = new AsyncLocalStorage<RequestLog>()

/**
 * What one request did, written as one line when it ends: the middleware
 * (lib/http/request-log.ts) opens it, code below adds to it.
 */
export class RequestLog {
  readonly #fields: LogFields
  /** The list fields (`tools`), and `events`: bounded as they grow, however many entries come. */
  readonly #lists = new Map<string, BoundedList>()
  readonly #debug: LogFields = {}
  #written = false

  /** `debug`: whether fields given to `debug()` (args, rendered prompts) may be written. */
  constructor(
    fields: LogFields,
    readonly debugEnabled: boolean,
  ) {
    this.#fields = { ...fields }
  }

  /** Runs `fn` with this log as the current one. */
  run<T>(fn: () => T): T {
    return scope.run(this, fn)
  }

  set(field: string, value: unknown): void {
    this.#fields[field] = value
  }

  /** Adds `by` to the counter `name` of the object field `group` (`cache.hits`). */
  count(group: string, name: string, by = 1): void {
    const counters = (this.#fields[group] ??= {}) as Record<string, number>
    counters[name] = (counters[name] ?? 0) + by
  }

  /** Appends `item` to the list field `list` (`tools`): the line keeps the first entries and counts them all. */
  append(list: string, item: LogFields): void {
    let bounded = this.#lists.get(list)
    if (!bounded) this.#lists.set(list, (bounded = new BoundedList()))
    bounded.add(item)
  }

  /** Request data (args, rendered text): written only when LOG_DEBUG asks for it. */
  debug(fields: LogFields): void {
    if (this.debugEnabled) Object.assign(this.#debug, fields)
  }

  event(level: Level, msg: string, fields: LogFields): void {
    if (this.#written) emit(level, msg, { request_id: this.#fields.request_id, ...fields })
    else this.append('events', { level, msg, ...fields })
  }

  /** Writes the request's line, once; what is logged later gets lines of its own. */
  write(level: Level, fields: LogFields): void {
    if (this.#written) return
    this.#written = true
    const lists = [...this.#lists].map(([name, list]) => list.fields(name))
    const debug = Object.keys(this.#debug).length > 0 ? this.#debug : undefined
    emit(level, 'request', Object.assign({ ...this.#fields, ...fields }, ...lists), debug)
  }
}

/**
 * `fn`, bound to the current request: what it logs belongs to that request
 * wherever it is called from (a stream's callbacks run outside the handler).
 */
export function boundToRequest<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return AsyncLocalStorage.bind(fn)
}

/** The current request's log, if there is a request. */
export function requestLog(): RequestLog | undefined {
  return scope.getStore()
}

function logAt(level: Level) {
  return (msg: string, fields: LogFields = {}) => {
    const request = scope.getStore()
    if (request) request.event(level, msg, fields)
    else emit(level, msg, fields)
  }
}

export const log = {
  info: logAt('info'),
  warn: logAt('warn'),
  error: logAt('error'),
}

/** A message for an unknown thrown value, for logs and error bodies. */
export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message
  return String(e)
}
