// The tests' redis-server: the dev tool's (dev/redis-server.ts), with a
// database for each test file the bridge serves (test/support/upstash-bridge.ts).
import { startRedis as startRedisServer } from '../../dev/redis-server'
import type { RedisServer } from '../../dev/redis-server'

export type { RedisServer } from '../../dev/redis-server'

/** The databases of the tests' redis-server: the bridge hands them out, one to each test file. */
export const DATABASES = 256

export function startRedis(): Promise<RedisServer> {
  return startRedisServer({ databases: DATABASES })
}
