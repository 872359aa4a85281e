/** The part of autocannon's JavaScript API that the bench scripts use (autocannon ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    /** Called with every response's status, body, the connection's context, and headers (names as sent). */
    onResponse?: (status: number, body: string, context: unknown, headers: Record<string, string | string[]>) => void
  }

  export interface Options {
    url: string
    connections?: number
    /** Seconds. */
    duration?: number
    /** Requests per second from all connections together; unlimited when unset. */
    overallRate?: number
    /** Seconds a response may take before it counts as a timeout (default 10). */
    timeout?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: Request[]
  }

  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    p50: number
    p99: number
  }

  export interface Result {
    /** Seconds. */
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
    /** Milliseconds, of 2xx responses. */
    latency: Histogram & { totalCount: number }
    /** Requests per one-second sample. */
    requests: Histogram & { total: number; sent: number }
  }

  /** Emits 'response' (client, statusCode, resBytes, responseTime in ms) for every response; resolves when done. */
  export interface Instance extends EventEmitter, PromiseLike<Result> {}

  export default function autocannon(options: Options): Instance
}
