// Runs inside workerd: calls the real Worker with an environment pointing at
// a database of its own on the test Redis, reached through the bridge.
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test'
import { Redis } from '@upstash/redis/cloudflare'
import { inject } from 'vitest'
import worker from '../../functions/index'
import type { Env } from '../../lib/env'

export interface TestRedis {
  /** The Worker's environment for this database. */
  env: Env
  /** The real client, for writing fixtures the way publishers do. */
  redis: Redis
  /** Upstash HTTP requests made with this database's token since the last reset. */
  requests(): Promise<number>
  resetRequests(): Promise<void>
  /** While stalled, Redis takes requests and never answers them. */
  stall(stalled: boolean): Promise<void>
  release(): Promise<void>
}

/** A fresh, empty Redis database, reached through the bridge with its own token. */
export async function freshRedis(): Promise<TestRedis> {
  const bridge = inject('bridgeUrl')
  const res = await fetch(`${bridge}/__bridge/databases`, { method: 'POST' })
  if (!res.ok) throw new Error(`bridge refused a database: ${res.status} ${await res.text()}`)
  const { token } = (await res.json()) as { token: string }
  const admin = `${bridge}/__bridge/databases/${token}`
  return {
    env: { UPSTASH_REDIS_REST_URL: bridge, UPSTASH_REDIS_REST_TOKEN: token },
    redis: new Redis({ url: bridge, token, enableTelemetry: false }),
    async requests() {
      const stats = (await (await fetch(`${admin}/stats`)).json()) as { requests: number }
      return stats.requests
    },
    async resetRequests() {
      await fetch(`${admin}/stats/reset`, { method: 'POST' })
    },
    async stall(stalled) {
      await fetch(`${admin}/stall`, { method: stalled ? 'POST' : 'DELETE' })
    },
    async release() {
      await fetch(admin, { method: 'DELETE' })
    },
  }
}

export interface Answer {
  status: number
  headers: Headers
  body: Record<string, unknown>
}

/** One request to the Worker, answered as parsed JSON. `raw` sends a body as it is, JSON or not. */
export async function call(env: Env, method: string, path: string, body?: unknown, raw?: string): Promise<Answer> {
  const init: RequestInit = { method }
  if (body !== undefined || raw !== undefined) {
    init.body = raw ?? JSON.stringify(body)
    init.headers = { 'content-type': 'application/json' }
  }
  const ctx = createExecutionContext()
  const res = await worker.fetch(new Request(`http://shell.test${path}`, init), env, ctx)
  await waitOnExecutionContext(ctx)
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> }
}

export const get = (env: Env, path: string) => call(env, 'GET', path)
