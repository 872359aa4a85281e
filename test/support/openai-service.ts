// The service as an OpenAI client meets it, for tests on Node (issue 32): `npm run dev` (wrangler dev) on a port,
// with a real redis-server behind the Upstash-protocol bridge, the local OpenAI-compatible LLM server and the REST
// tool server behind it. The clients under test get only its URL and the API token.
import { Redis } from '@upstash/redis'
import { startLlmServer } from './llm-server'
import type { LlmRequestRecord } from './llm-server'
import type { ScriptedAnswer } from './llm-script'
import { startRedis } from './redis-server'
import { startToolServer } from './tool-server'
import type { ToolServerStats } from './tool-server'
import { startBridge } from './upstash-bridge'
import { startDev } from './wrangler-dev'

/** The API_TOKEN the service is started with: what a client passes as its apiKey. */
export const API_TOKEN = 'openai-front-door-token'
/** The LLM_DEFAULT_MODEL the service is started with. */
export const DEFAULT_MODEL = 'default-model'

export interface OpenAiService {
  /** The base URL an OpenAI client takes: `http://127.0.0.1:PORT/v1`. */
  baseURL: string
  /** The service's database, to write records the way publishers do. */
  redis: Redis
  /** The REST tool server's base URL, for tool records. */
  toolsUrl: string
  /** The LLM server's URL (`.../v1`), for LLM_ROUTES. */
  llmUrl: string
  /** Scripts a model of the LLM server (llm-server.ts's `/__script`), forgetting its requests. */
  script(model: string, answers: ScriptedAnswer[]): Promise<void>
  /** The chat requests the LLM server received for `model`. */
  requests(model: string): Promise<LlmRequestRecord[]>
  /** The tool server's counts for a `?group=`. */
  toolStats(group: string): Promise<ToolServerStats>
  stop(): Promise<void>
}

/** Starts every server, then the Worker under wrangler dev with `vars` added to its configuration. */
export async function startOpenAiService(vars: Record<string, string> = {}): Promise<OpenAiService> {
  const redisServer = await startRedis()
  const bridge = await startBridge({ redisPort: redisServer.port })
  const llm = await startLlmServer()
  const tools = await startToolServer()
  const res = await fetch(`${bridge.url}/__bridge/databases`, { method: 'POST' })
  const { token } = (await res.json()) as { token: string }
  const dev = await startDev({
    UPSTASH_REDIS_REST_URL: bridge.url,
    UPSTASH_REDIS_REST_TOKEN: token,
    LLM_BASE_URL: llm.url,
    LLM_API_KEY: 'provider-key',
    LLM_DEFAULT_MODEL: DEFAULT_MODEL,
    LLM_RETRY_DELAYS_MS: '0',
    API_TOKEN,
    TOOLS_BASE_URL: tools.url,
    ...vars,
  })
  const llmAdmin = async (method: string, path: string, model: string, body?: unknown) => {
    const init: RequestInit = body === undefined ? { method } : { method, body: JSON.stringify(body) }
    const answer = await fetch(`${llm.origin}${path}?model=${encodeURIComponent(model)}`, init)
    if (!answer.ok) throw new Error(`LLM server ${path}: ${answer.status} ${await answer.text()}`)
    return answer.json() as Promise<unknown>
  }
  return {
    baseURL: `${dev.url}/v1`,
    redis: new Redis({ url: bridge.url, token, enableTelemetry: false }),
    toolsUrl: tools.url,
    llmUrl: llm.url,
    script: async (model, answers) => void (await llmAdmin('POST', '/__script', model, { answers })),
    requests: async (model) =>
      ((await llmAdmin('GET', '/__requests', model)) as { requests: LlmRequestRecord[] }).requests,
    toolStats: async (group) => (await (await fetch(`${tools.url}/__stats?group=${group}`)).json()) as ToolServerStats,
    async stop() {
      await dev.stop()
      await Promise.all([tools.stop(), llm.stop()])
      await bridge.stop()
      await redisServer.stop()
    },
  }
}
