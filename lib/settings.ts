import { DEFAULT_ENVIRON_MAX_BYTES } from './catalog/environs'
import { parseWebhookUrls } from './changes/webhooks'
import type { ChangeMessage, WebhookSettings } from './changes/webhooks'
import type { ChatOptions } from './chat/options'
import type { Env } from './env'
import { clip, misconfigured } from './errors'
import { noLlm, parseRoutes } from './llm/config'
import type { LlmRoute } from './llm/config'
import type { LlmOptions } from './llm/options'
import { parsePublishers } from './publishers'
import type { ConfiguredPublisher } from './publishers'
import type { RenderOptions } from './render/types'
import { MAX_HISTORY } from './store/history'
import { LABEL_PATTERN, LABEL_RULE } from './store/keys'
import type { StaleOptions } from './store/stale'
import type { UpstashConfig } from './store/upstash'
import { DEFAULT_TOOL_MAX_BYTES, DEFAULT_TOOL_MAX_CALLS } from './tools/session'

/**
 * The Worker's settings, read from its `env` here and nowhere else: each
 * parsed and checked on first use, once per `env` (an isolate sees one; a
 * test may pass its own per request). A bad setting is 503 MISCONFIGURED
 * naming it, and fails only what reads it: a bad LLM_ROUTES leaves /health
 * and renders alone.
 */
export interface Settings {
  /** UPSTASH_REDIS_REST_URL, _TOKEN and REDIS_TIMEOUT_MS; undefined when both are unset (the embedded store). */
  readonly redis: RedisSettings | undefined
  /** STORE_STALE_MAX_S, and the KV snapshots binding: what a read may be answered from while Redis fails. */
  readonly stale: StaleSettings
  /** RENDER_TIMEOUT_MS, ENVIRON_MAX_BYTES and the TOOL_* settings; the request adds its waitUntil. */
  readonly render: RenderOptions
  /** ENVIRON_MAX_BYTES: the bytes one environ read (REST or MCP) may load. */
  readonly environMaxBytes: number
  /** CHAT_TIMEOUT_MS, CHAT_MAX_STEPS, LLM_OUTPUT_RETRIES, CHAT_ARGUMENTS_MAX_BYTES. */
  readonly chat: ChatOptions
  /** LLM_TIMEOUT_MS, LLM_MAX_BYTES, LLM_RETRY_DELAYS_MS. */
  readonly llm: LlmOptions
  /** LLM_DEFAULT_MODEL. */
  readonly defaultModel: string | undefined
  /** TEST_JUDGE_MODEL, TEST_MAX_CASES and TEST_MAX_JUDGE_CALLS: what prompt tests may take (lib/prompt-tests). */
  readonly tests: TestSettings
  /** Whether chats have a provider (LLM_BASE_URL or LLM_ROUTES is set), without parsing either. */
  readonly llmConfigured: boolean
  /** Where `model` is reached: its LLM_ROUTES entry, else LLM_BASE_URL with LLM_API_KEY. */
  llmRoute(model: string): LlmRoute
  /** The models the service routes: LLM_ROUTES' keys, then LLM_DEFAULT_MODEL. */
  readonly llmModels: string[]
  /** HISTORY_LIMIT: versions kept of each record, from 1 to MAX_HISTORY. */
  readonly historyLimit: number
  /** AUDIT_MAX_ENTRIES: entries the audit trail keeps (about; lib/changes/audit.ts), from 1 to MAX_AUDIT_ENTRIES. */
  readonly auditMaxEntries: number
  /** MAX_BODY_BYTES. */
  readonly maxBodyBytes: number
  /** MCP_MAX_BYTES. */
  readonly mcpMaxBytes: number
  /** CORS_ORIGINS, each checked to be an origin as browsers send it (or `*`); empty when unset. */
  readonly corsOrigins: readonly string[]
  readonly apiToken: string | undefined
  readonly adminToken: string | undefined
  /** PUBLISHERS, checked on first use; empty when unset. */
  readonly publishers: readonly ConfiguredPublisher[]
  /** PROMOTE_APPROVALS is `1` or `true`: a promote waits for another publisher's approval. */
  readonly promoteApprovals: boolean
  /** PROMPT_LABEL, checked to be a label. */
  readonly promptLabel: string | undefined
  /** LOG_DEBUG is `true` or `1`. */
  readonly logDebug: boolean
  /** The values of the secret settings and of the secrets LLM_ROUTES names (read leniently: redaction never fails). */
  readonly secrets: readonly string[]
  /** WEBHOOK_URLS, WEBHOOK_SECRET and the CHANGE_EVENTS binding: where change events go (lib/changes). */
  readonly webhooks: WebhookSettings
  /** The static assets binding (wrangler.toml's [assets]). */
  readonly assets: Fetcher | undefined
}

/** What prompt tests may take. */
export interface TestSettings {
  /** TEST_JUDGE_MODEL: the model a `judge` assertion asks when the assertion names none (else LLM_DEFAULT_MODEL). */
  readonly judgeModel: string | undefined
  /** TEST_MAX_CASES: cases one prompt may keep (default 50). */
  readonly maxCases: number
  /** TEST_MAX_JUDGE_CALLS: `judge` assertions one run may send to a model (default 20); past it, they are skipped. */
  readonly maxJudgeCalls: number
}

/** Where Redis is, and the bound on one request to it: the store's own configuration (lib/store). */
export type RedisSettings = UpstashConfig

/** How old a last good copy may be (lib/store/stale.ts), and the KV namespace of the prompts' snapshots. */
export type StaleSettings = StaleOptions

/** Every setting the Worker reads (its bindings aside): the README's configuration table documents each. */
export const SETTING_NAMES = [
  'UPSTASH_REDIS_REST_URL',
  'UPSTASH_REDIS_REST_TOKEN',
  'REDIS_TIMEOUT_MS',
  'STORE_STALE_MAX_S',
  'RENDER_TIMEOUT_MS',
  'TOOL_TIMEOUT_MS',
  'TOOLS_BASE_URL',
  'TOOL_ALLOWED_HOSTS',
  'LLM_BASE_URL',
  'LLM_API_KEY',
  'LLM_DEFAULT_MODEL',
  'LLM_ROUTES',
  'API_TOKEN',
  'ADMIN_TOKEN',
  'PUBLISHERS',
  'PROMOTE_APPROVALS',
  'PROMPT_LABEL',
  'HISTORY_LIMIT',
  'AUDIT_MAX_ENTRIES',
  'LOG_DEBUG',
  'LLM_TIMEOUT_MS',
  'MAX_BODY_BYTES',
  'CORS_ORIGINS',
  'TOOL_MAX_CALLS',
  'TOOL_MAX_BYTES',
  'ENVIRON_MAX_BYTES',
  'MCP_MAX_BYTES',
  'LLM_MAX_BYTES',
  'LLM_RETRY_DELAYS_MS',
  'CHAT_TIMEOUT_MS',
  'CHAT_MAX_STEPS',
  'CHAT_ARGUMENTS_MAX_BYTES',
  'LLM_OUTPUT_RETRIES',
  'TEST_JUDGE_MODEL',
  'TEST_MAX_CASES',
  'TEST_MAX_JUDGE_CALLS',
  'WEBHOOK_URLS',
  'WEBHOOK_SECRET',
] as const satisfies readonly Setting[]

/** The settings that are text: every variable but the bindings. */
type Setting = Exclude<keyof Env, 'ASSETS' | 'SNAPSHOTS' | 'CHANGE_EVENTS'>

const DEFAULT_REDIS_TIMEOUT_MS = 2000
/** An hour of Redis being down is served from the last good copies; past it, the answers are too old to trust. */
const DEFAULT_STORE_STALE_MAX_S = 3600
/** A week: KV keeps a snapshot no longer than this, and a copy older than that is no copy to serve. */
const MAX_STORE_STALE_MAX_S = 7 * 24 * 3600
const DEFAULT_RENDER_TIMEOUT_MS = 500
/** Well under the render's deadline, so a slow tool leaves time to render around it. */
const DEFAULT_TOOL_TIMEOUT_MS = 300
/** CHAT_TIMEOUT_MS by default: a few model turns and tool rounds. */
const DEFAULT_CHAT_TIMEOUT_MS = 120_000
/** CHAT_MAX_STEPS by default: the most tool rounds a body may ask for. */
const DEFAULT_CHAT_MAX_STEPS = 8
const DEFAULT_OUTPUT_RETRIES = 2
/** TEST_MAX_CASES by default: a prompt's cases, run at each promote that touches it. */
const DEFAULT_TEST_MAX_CASES = 50
/** TEST_MAX_JUDGE_CALLS by default: a run's judge calls, each a model's answer to wait for and pay. */
const DEFAULT_TEST_MAX_JUDGE_CALLS = 20
/** What a render's body may carry to its tools (MAX_BODY_BYTES's default), a model's call may carry to one. */
const DEFAULT_ARGUMENTS_MAX_BYTES = 1024 * 1024
const DEFAULT_LLM_TIMEOUT_MS = 30_000
/** 4 MiB of one answer, or of one streamed answer in all. */
const DEFAULT_LLM_MAX_BYTES = 4 * 1024 * 1024
/** The spec's policy: after a first failure wait 100 ms, after a second 300 ms; at most two retries. */
const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [100, 300]
/** Retries at most, whatever LLM_RETRY_DELAYS_MS says: a failing provider is not worth more. */
const MAX_RETRIES = 5
/** Versions kept of each record unless HISTORY_LIMIT says otherwise. */
const DEFAULT_HISTORY_LIMIT = 50
/** Changes the audit trail keeps unless AUDIT_MAX_ENTRIES says otherwise: a few hundred bytes each, a few MB in all. */
const DEFAULT_AUDIT_MAX_ENTRIES = 10_000
/** A million entries is a few hundred MB of Redis: past that, the trail belongs in a log store. */
const MAX_AUDIT_ENTRIES = 1_000_000
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024
/** A few answers of TOOL_MAX_BYTES, JSON-escaped. */
const DEFAULT_MCP_MAX_BYTES = 4 * 1024 * 1024
/** The settings that are secrets themselves; LLM_ROUTES names more (each route's `apiKeyVar`). */
const SECRET_SETTINGS = [
  'LLM_API_KEY',
  'API_TOKEN',
  'ADMIN_TOKEN',
  'UPSTASH_REDIS_REST_TOKEN',
  'WEBHOOK_SECRET',
] as const
/** Characters of a bad setting quoted back: enough to recognise it, never a whole file pasted by mistake. */
const QUOTED_CHARS = 40

const parsed = new WeakMap<object, Settings>()
const UNSET: Env = {}

/** The settings of `env` (none: every default), made once per `env` object; nothing is parsed until read. */
export function settingsFrom(env: Env | undefined): Settings {
  const from = env ?? UNSET
  let settings = parsed.get(from)
  if (!settings) {
    settings = new EnvSettings(from)
    parsed.set(from, settings)
  }
  return settings
}

class EnvSettings implements Settings {
  readonly #env: Env
  /** Each group once it parsed; a bad one is not kept, and fails each request that reads it. */
  readonly #made = new Map<string, unknown>()

  constructor(env: Env) {
    this.#env = env
  }

  #once<T>(name: string, make: () => T): T {
    if (this.#made.has(name)) return this.#made.get(name) as T
    const value = make()
    this.#made.set(name, value)
    return value
  }

  get redis(): RedisSettings | undefined {
    return this.#once('redis', () => {
      const env = this.#env
      const url = env.UPSTASH_REDIS_REST_URL
      const token = env.UPSTASH_REDIS_REST_TOKEN
      if (url && token) return { url, token, timeoutMs: intVar(env, 'REDIS_TIMEOUT_MS', DEFAULT_REDIS_TIMEOUT_MS) }
      if (url || token) {
        const [missing, set] = url
          ? ['UPSTASH_REDIS_REST_TOKEN', 'UPSTASH_REDIS_REST_URL']
          : ['UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN']
        throw misconfigured(missing, `is not set, though ${set} is: set both, or neither for the embedded store`)
      }
      return undefined
    })
  }

  get stale(): StaleSettings {
    return this.#once('stale', () => {
      const maxS = intVar(this.#env, 'STORE_STALE_MAX_S', DEFAULT_STORE_STALE_MAX_S, 0)
      if (maxS > MAX_STORE_STALE_MAX_S)
        throw misconfigured('STORE_STALE_MAX_S', `must be at most ${MAX_STORE_STALE_MAX_S} (7 days), got ${maxS}`)
      // A Redis that hangs fails a read only at REDIS_TIMEOUT_MS, by default past a render's deadline: a read
      // with a copy to fall back on waits at most half the render's deadline for it.
      const redisMs = intVar(this.#env, 'REDIS_TIMEOUT_MS', DEFAULT_REDIS_TIMEOUT_MS)
      const waitMs = Math.min(redisMs, Math.floor(this.render.deadlineMs / 2))
      return { maxAgeMs: maxS * 1000, snapshots: this.#env.SNAPSHOTS, waitMs }
    })
  }

  get render(): RenderOptions {
    return this.#once('render', () => {
      const env = this.#env
      const hosts = env.TOOL_ALLOWED_HOSTS?.split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean)
      return {
        deadlineMs: intVar(env, 'RENDER_TIMEOUT_MS', DEFAULT_RENDER_TIMEOUT_MS),
        environMaxBytes: this.environMaxBytes,
        tools: {
          timeoutMs: intVar(env, 'TOOL_TIMEOUT_MS', DEFAULT_TOOL_TIMEOUT_MS),
          baseUrl: env.TOOLS_BASE_URL || undefined,
          allowedHosts: hosts && hosts.length > 0 ? hosts : undefined,
          maxCalls: intVar(env, 'TOOL_MAX_CALLS', DEFAULT_TOOL_MAX_CALLS),
          maxBytes: intVar(env, 'TOOL_MAX_BYTES', DEFAULT_TOOL_MAX_BYTES),
        },
      }
    })
  }

  get environMaxBytes(): number {
    return this.#once('environMaxBytes', () => intVar(this.#env, 'ENVIRON_MAX_BYTES', DEFAULT_ENVIRON_MAX_BYTES))
  }

  get chat(): ChatOptions {
    return this.#once('chat', () => ({
      deadlineMs: intVar(this.#env, 'CHAT_TIMEOUT_MS', DEFAULT_CHAT_TIMEOUT_MS),
      maxSteps: intVar(this.#env, 'CHAT_MAX_STEPS', DEFAULT_CHAT_MAX_STEPS),
      outputRetries: intVar(this.#env, 'LLM_OUTPUT_RETRIES', DEFAULT_OUTPUT_RETRIES, 0),
      maxArgumentChars: intVar(this.#env, 'CHAT_ARGUMENTS_MAX_BYTES', DEFAULT_ARGUMENTS_MAX_BYTES),
    }))
  }

  get llm(): LlmOptions {
    return this.#once('llm', () => ({
      timeoutMs: intVar(this.#env, 'LLM_TIMEOUT_MS', DEFAULT_LLM_TIMEOUT_MS),
      maxBytes: intVar(this.#env, 'LLM_MAX_BYTES', DEFAULT_LLM_MAX_BYTES),
      retryDelaysMs: intListVar(this.#env, 'LLM_RETRY_DELAYS_MS', DEFAULT_RETRY_DELAYS_MS, MAX_RETRIES),
    }))
  }

  get tests(): TestSettings {
    return this.#once('tests', () => ({
      judgeModel: this.#env.TEST_JUDGE_MODEL || undefined,
      maxCases: intVar(this.#env, 'TEST_MAX_CASES', DEFAULT_TEST_MAX_CASES),
      maxJudgeCalls: intVar(this.#env, 'TEST_MAX_JUDGE_CALLS', DEFAULT_TEST_MAX_JUDGE_CALLS, 0),
    }))
  }

  get defaultModel(): string | undefined {
    return this.#env.LLM_DEFAULT_MODEL || undefined
  }

  get llmConfigured(): boolean {
    return Boolean(this.#env.LLM_BASE_URL || this.#env.LLM_ROUTES)
  }

  get llmModels(): string[] {
    const routed = Object.keys(this.#routes())
    return this.defaultModel === undefined ? routed : [...routed, this.defaultModel]
  }

  llmRoute(model: string): LlmRoute {
    const env = this.#env
    const routes = this.#routes()
    const spec = Object.hasOwn(routes, model) ? routes[model] : undefined
    if (spec) {
      const { api = 'openai', baseURL, apiKeyVar, maxTokens } = spec
      return { api, baseURL, apiKey: this.#routeSecret(apiKeyVar, model), maxTokens }
    }
    if (!env.LLM_BASE_URL && !env.LLM_ROUTES) throw noLlm()
    if (!env.LLM_BASE_URL) {
      throw misconfigured(
        'LLM_BASE_URL',
        `is not set, and LLM_ROUTES has no route for model ${clip(JSON.stringify(model), 80)}`,
      )
    }
    return { api: 'openai', baseURL: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY ?? '' }
  }

  #routes() {
    return this.#once('llmRoutes', () => parseRoutes(this.#env.LLM_ROUTES))
  }

  /** A secret named by a route; the name comes from configuration, never from a request. */
  #routeSecret(name: string | undefined, model: string): string {
    if (!name) return ''
    const value = (this.#env as Record<string, unknown>)[name]
    if (typeof value !== 'string')
      throw misconfigured(name, `is not set: LLM_ROUTES names it as the key of model ${model}`)
    return value
  }

  get historyLimit(): number {
    return this.#once('historyLimit', () => {
      const limit = intVar(this.#env, 'HISTORY_LIMIT', DEFAULT_HISTORY_LIMIT)
      if (limit > MAX_HISTORY) throw misconfigured('HISTORY_LIMIT', `must be at most ${MAX_HISTORY}, got ${limit}`)
      return limit
    })
  }

  get auditMaxEntries(): number {
    return this.#once('auditMaxEntries', () => {
      const max = intVar(this.#env, 'AUDIT_MAX_ENTRIES', DEFAULT_AUDIT_MAX_ENTRIES)
      if (max > MAX_AUDIT_ENTRIES) {
        throw misconfigured('AUDIT_MAX_ENTRIES', `must be at most ${MAX_AUDIT_ENTRIES}, got ${max}`)
      }
      return max
    })
  }

  get maxBodyBytes(): number {
    return this.#once('maxBodyBytes', () => intVar(this.#env, 'MAX_BODY_BYTES', DEFAULT_MAX_BODY_BYTES))
  }

  get mcpMaxBytes(): number {
    return this.#once('mcpMaxBytes', () => intVar(this.#env, 'MCP_MAX_BYTES', DEFAULT_MCP_MAX_BYTES))
  }

  get corsOrigins(): readonly string[] {
    return this.#once('corsOrigins', () =>
      (this.#env.CORS_ORIGINS ?? '')
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean)
        .map(originOf),
    )
  }

  get apiToken(): string | undefined {
    return this.#env.API_TOKEN || undefined
  }

  get adminToken(): string | undefined {
    return this.#env.ADMIN_TOKEN || undefined
  }

  get publishers(): readonly ConfiguredPublisher[] {
    return this.#once('publishers', () => parsePublishers(this.#env.PUBLISHERS))
  }

  get promoteApprovals(): boolean {
    return this.#env.PROMOTE_APPROVALS === '1' || this.#env.PROMOTE_APPROVALS === 'true'
  }

  get promptLabel(): string | undefined {
    const configured = this.#env.PROMPT_LABEL
    if (!configured) return undefined
    if (!LABEL_PATTERN.test(configured)) throw misconfigured('PROMPT_LABEL', LABEL_RULE)
    return configured
  }

  get logDebug(): boolean {
    return this.#env.LOG_DEBUG === 'true' || this.#env.LOG_DEBUG === '1'
  }

  get secrets(): readonly string[] {
    return this.#once('secrets', () => {
      const env = this.#env as Record<string, unknown>
      const names = [...SECRET_SETTINGS, ...routeKeyVars(this.#env.LLM_ROUTES)]
      return [...new Set(names.map((name) => env[name]).filter((v): v is string => typeof v === 'string' && v !== ''))]
    })
  }

  get webhooks(): WebhookSettings {
    return this.#once('webhooks', () => {
      const policy = { allowedHosts: this.render.tools.allowedHosts }
      const urls = parseWebhookUrls(this.#env.WEBHOOK_URLS, policy)
      const secret = this.#env.WEBHOOK_SECRET || undefined
      if (urls.length > 0 && secret === undefined) {
        throw misconfigured(
          'WEBHOOK_SECRET',
          'is not set, though WEBHOOK_URLS is: every change event is signed with it',
        )
      }
      return { urls, secret, policy, queue: this.#env.CHANGE_EVENTS as Queue<ChangeMessage> | undefined }
    })
  }

  get assets(): Fetcher | undefined {
    return this.#env.ASSETS
  }
}

/**
 * An integer of at least `min` (a positive one by default) from a variable,
 * or the default when unset. A bad value is MISCONFIGURED naming the
 * variable: the operator's fault, not a bug.
 */
function intVar(env: Env, name: Setting, fallback: number, min = 1): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isSafeInteger(value) || value < min) {
    const wanted = min === 1 ? 'a positive integer' : `an integer of at least ${min}`
    throw misconfigured(name, `must be ${wanted}, got '${clip(raw, QUOTED_CHARS)}'`)
  }
  return value
}

/**
 * Comma-separated integers of at least 0, from 1 to `maxItems` of them, from
 * a variable, or the default when unset; a bad value is MISCONFIGURED.
 */
function intListVar(env: Env, name: Setting, fallback: readonly number[], maxItems: number): number[] {
  const raw = env[name]
  if (raw === undefined || raw === '') return [...fallback]
  const values = raw.split(',').map((item) => (item.trim() === '' ? NaN : Number(item)))
  if (values.length > maxItems || values.some((v) => !Number.isSafeInteger(v) || v < 0)) {
    throw misconfigured(
      name,
      `must be 1 to ${maxItems} comma-separated integers of at least 0, got '${clip(raw, QUOTED_CHARS)}'`,
    )
  }
  return values
}

/**
 * A CORS_ORIGINS entry as browsers send it in `Origin` (`https://app.example`, lower case, no path): written
 * with a trailing slash or capitals it would never match. An entry that names no origin is a setting to fix.
 */
function originOf(entry: string): string {
  if (entry === '*') return entry
  let url: URL | undefined
  try {
    url = new URL(entry)
  } catch {
    url = undefined
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw misconfigured('CORS_ORIGINS', `must list origins like https://app.example, got '${entry.slice(0, 40)}'`)
  }
  return url.origin
}

/**
 * The names of the secrets LLM_ROUTES points at. Read leniently: a bad
 * LLM_ROUTES is llmRoute's to refuse, with its own message, and redaction
 * must never fail.
 */
function routeKeyVars(raw: string | undefined): string[] {
  if (!raw) return []
  let routes: unknown
  try {
    routes = JSON.parse(raw)
  } catch {
    return []
  }
  if (typeof routes !== 'object' || routes === null) return []
  return Object.values(routes).flatMap((spec: unknown) => {
    const name = (spec as { apiKeyVar?: unknown } | null)?.apiKeyVar
    return typeof name === 'string' ? [name] : []
  })
}
