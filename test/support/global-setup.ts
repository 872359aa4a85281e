import type { TestProject } from 'vitest/node'
import { startMcpServer } from './mcp-server'
import { startRedis } from './redis-server'
import { startToolServer } from './tool-server'
import { startBridge } from './upstash-bridge'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the Upstash-protocol bridge in front of the test redis-server. */
    bridgeUrl: string
    /** Base URL (no trailing slash) of the REST tool server (test/support/tool-server.ts). */
    toolServerUrl: string
    /** Endpoint (`.../mcp`) of the stateless MCP server (test/support/mcp-server.ts). */
    mcpUrl: string
  }
}

/** Starts a real redis-server, the bridge and the tool servers once for the whole workerd project. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis()
  const bridge = await startBridge({ redisPort: redis.port })
  const tools = await startToolServer()
  const mcp = await startMcpServer()
  project.provide('bridgeUrl', bridge.url)
  project.provide('toolServerUrl', tools.url)
  project.provide('mcpUrl', mcp.url)
  return async () => {
    await Promise.all([mcp.stop(), tools.stop()])
    await bridge.stop()
    await redis.stop()
  }
}
