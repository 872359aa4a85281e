import type { Env } from '../env'
import { environMaxBytes } from '../catalog'
import { intVar } from '../env'
import { DEFAULT_TOOL_MAX_BYTES, DEFAULT_TOOL_MAX_CALLS } from '../tools'
import type { RenderOptions } from './pipeline'

const DEFAULT_RENDER_TIMEOUT_MS = 500
/** Well under the render's deadline, so a slow tool leaves time to render around it. */
const DEFAULT_TOOL_TIMEOUT_MS = 300

/** The render options the Worker's configuration sets; `waitUntil`, the request's, keeps a call's cancellation alive. */
export function renderOptionsFrom(env: Env, waitUntil?: (p: Promise<unknown>) => void): RenderOptions {
  const hosts = env.TOOL_ALLOWED_HOSTS?.split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
  return {
    deadlineMs: intVar(env, 'RENDER_TIMEOUT_MS', DEFAULT_RENDER_TIMEOUT_MS),
    environMaxBytes: environMaxBytes(env),
    tools: {
      timeoutMs: intVar(env, 'TOOL_TIMEOUT_MS', DEFAULT_TOOL_TIMEOUT_MS),
      baseUrl: env.TOOLS_BASE_URL || undefined,
      allowedHosts: hosts && hosts.length > 0 ? hosts : undefined,
      maxCalls: intVar(env, 'TOOL_MAX_CALLS', DEFAULT_TOOL_MAX_CALLS),
      maxBytes: intVar(env, 'TOOL_MAX_BYTES', DEFAULT_TOOL_MAX_BYTES),
      waitUntil,
    },
  }
}
