import type { TestProject } from 'vitest/node'
import { startDripServer } from './drip-server'
import { startGrpcServer } from './grpc-server'
import { startLlmServer } from './llm-server'
import { startMcpServer } from './mcp-server'
import { startRedis } from './redis-server'
import { startToolServer } from './tool-server'
import { startBridge } from './upstash-bridge'
import { startWebhookReceiver } from './webhook-receiver'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the Upstash-protocol bridge in front of the test redis-server. */
    bridgeUrl: string
    /** Base URL (no trailing slash) of the REST tool server (test/support/tool-server.ts). */
    toolServerUrl: string
    /** Endpoint (`.../mcp`) of the stateless MCP server (test/support/mcp-server.ts). */
    mcpUrl: string
    /** Base URL (`.../v1`, no trailing slash) of the OpenAI-compatible provider (test/support/llm-server.ts). */
    llmUrl: string
    /**
     * Base URL (no trailing slash) of the gRPC server (test/support/grpc-server.ts); `/g/<group>` after it keeps a
     * test's records apart.
     */
    grpcUrl: string
    /**
     * The gRPC server's FileDescriptorSet (test/support/grpc/greet.binpb) in base64, handed over here because
     * the host's files are out of reach inside workerd.
     */
    grpcDescriptor: string
    /** Base URL of the server whose event streams drip 16-byte chunks without a blank line (test/support/drip-server.ts). */
    dripUrl: string
    /** Base URL of the webhook receiver (test/support/webhook-receiver.ts): deliveries to `/inbox/<name>`. */
    webhookUrl: string
  }
}

/**
 * Starts a real redis-server, the bridge, the tool servers, the LLM provider and the gRPC server once for the whole
 * workerd project.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redis = await startRedis()
  const bridge = await startBridge({ redisPort: redis.port })
  const tools = await startToolServer()
  const mcp = await startMcpServer()
  const llm = await startLlmServer()
  const grpc = await startGrpcServer()
  const drip = await startDripServer()
  const webhooks = await startWebhookReceiver()
  project.provide('bridgeUrl', bridge.url)
  project.provide('toolServerUrl', tools.url)
  project.provide('mcpUrl', mcp.url)
  project.provide('llmUrl', llm.url)
  project.provide('grpcUrl', grpc.url)
  project.provide('grpcDescriptor', grpc.descriptorBase64)
  project.provide('dripUrl', drip.url)
  project.provide('webhookUrl', webhooks.url)
  return async () => {
    await Promise.all([webhooks.stop(), drip.stop(), grpc.stop(), llm.stop(), mcp.stop(), tools.stop()])
    await bridge.stop()
    await redis.stop()
  }
}
