import type { TestProject } from 'vitest/node'
import { startRedis } from './redis-server'
import { startBridge } from './upstash-bridge'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the Upstash-protocol bridge in front of the test redis-server. */
    bridgeUrl: string
  }
}

/** Starts a real redis-server and the bridge once for the whole workerd project. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis()
  const bridge = await startBridge({ redisPort: redis.port })
  project.provide('bridgeUrl', bridge.url)
  return async () => {
    await bridge.stop()
    await redis.stop()
  }
}
