/** The part of autocannon's JavaScript API that bench/endpoints.ts uses (autocannon ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
    /** Called with every response's status and body. */
    onResponse?: (status: number, body: string) => void
  }

  export interface Options {
    url: string
    connections?: number
    /** Seconds. */
    duration?: number
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
