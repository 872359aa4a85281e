import { AsyncLocalStorage } from 'node:async_hooks'

/**
 * Structured logging: one JSON object per line, so that Workers Logs and
 * `wrangler tail` can filter on fields. Callers pass facts, never secrets or
 * argument values.
 *
 * During a request, everything logged belongs to that request's one line
 * (see RequestLog): a warning deep in the catalogue becomes an entry of the
 * line's `events`, so a request never scatters its story over several lines.
 * Outside a request (the CLI, the benchmarks, work left running after the
 * answer was sent) each call writes its own line.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Record<string, unknown>

function emit(level: Level, msg: string, fields: LogFields): void {
  const line = JSON.stringify({ level, msg, ...fields })
  if (level === 'error') console.error(line)
  else if (level === 'warn') console.warn(line)
  else console.log(line)
}

const scope = new AsyncLocalStorage<RequestLog>()

/**
 * What one request did, written as one line when it ends: the middleware
 * (lib/http/request-log.ts) opens it, code below adds to it.
 */
export class RequestLog {
  readonly #fields: LogFields
  readonly #events: LogFields[] = []
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

  /** Appends `item` to the list field `list` (`tools`). */
  append(list: string, item: LogFields): void {
    ;((this.#fields[list] ??= []) as LogFields[]).push(item)
  }

  /** Request data (args, rendered text): written only when LOG_DEBUG asks for it. */
  debug(fields: LogFields): void {
    if (this.debugEnabled) Object.assign(this.#debug, fields)
  }

  event(level: Level, msg: string, fields: LogFields): void {
    if (this.#written) emit(level, msg, { request_id: this.#fields.request_id, ...fields })
    else this.#events.push({ level, msg, ...fields })
  }

  /** Writes the request's line, once; what is logged later gets lines of its own. */
  write(level: Level, fields: LogFields): void {
    if (this.#written) return
    this.#written = true
    const events = this.#events.length > 0 ? { events: this.#events } : {}
    const debug = Object.keys(this.#debug).length > 0 ? { debug: this.#debug } : {}
    emit(level, 'request', { ...this.#fields, ...fields, ...events, ...debug })
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
