/**
 * The Worker's configuration: wrangler.toml `[vars]`, secrets, and `.dev.vars`
 * locally. Everything is optional; unset, the service runs on its embedded store.
 * Read by lib/settings.ts alone, which parses and checks each setting.
 */
export interface Env {
  /** The static assets (wrangler.toml's [assets]): /openapi.json is one. */
  ASSETS?: Fetcher
  /** Workers KV (wrangler.toml's [[kv_namespaces]]): per prompt, the last good copy of what its render reads. */
  SNAPSHOTS?: KVNamespace
  /** Upstash REST endpoint, e.g. https://eu1-xyz.upstash.io. Both this and the token, or neither. */
  UPSTASH_REDIS_REST_URL?: string
  /** Upstash REST token (a secret). */
  UPSTASH_REDIS_REST_TOKEN?: string
  /** Bound on one Redis HTTP request, retries included, in ms (default 2000). */
  REDIS_TIMEOUT_MS?: string
  /** Age in seconds of the oldest last good copy a read may be answered from while Redis fails (default 3600; 0: none). */
  STORE_STALE_MAX_S?: string
  /** Deadline of a whole render, in ms (default 500). */
  RENDER_TIMEOUT_MS?: string
  /** Bound on one tool call, from when its request is sent, in ms (default 300). */
  TOOL_TIMEOUT_MS?: string
  /** Base of relative tool URLs; a module's `modules.{module}.base_url` variable wins. */
  TOOLS_BASE_URL?: string
  /** Comma-separated hostnames or host:port pairs tools may reach; unset, any. */
  TOOL_ALLOWED_HOSTS?: string
  /** OpenAI-compatible base URL, version path included (https://api.openai.com/v1). */
  LLM_BASE_URL?: string
  /** Its key (a secret). */
  LLM_API_KEY?: string
  /** The model when a chat names none. */
  LLM_DEFAULT_MODEL?: string
  /** JSON: {"<model>": {"baseURL": "...", "apiKeyVar": "<secret's name>"}} for models served elsewhere. */
  LLM_ROUTES?: string
  /** When set (a secret), every /api request needs `Authorization: Bearer <API_TOKEN>` (or ADMIN_TOKEN). */
  API_TOKEN?: string
  /** When set (a secret), writes are enabled, and need `Authorization: Bearer <ADMIN_TOKEN>`; unset, they answer 403. */
  ADMIN_TOKEN?: string
  /** JSON: [{"name", "token_sha256", "scopes"}], publishers beside ADMIN_TOKEN, each known by its token's SHA-256 (a secret). */
  PUBLISHERS?: string
  /** `1` or `true`: a promote answers 202 with a request, carried out when another publisher approves it. */
  PROMOTE_APPROVALS?: string
  /** The label every request reads and writes when it names none with `?label=`; unset, the base. */
  PROMPT_LABEL?: string
  /** Versions kept of each record (default 50). */
  HISTORY_LIMIT?: string
  /** Changes the audit trail keeps, about (default 10000, at most 1000000). */
  AUDIT_MAX_ENTRIES?: string
  /** `true` or `1`: request log lines also carry the args, the rendered prompt and sensitive error messages. */
  LOG_DEBUG?: string
  /** Bound on the wait for a provider's response headers, and on a gap between streamed chunks, in ms (default 30000). */
  LLM_TIMEOUT_MS?: string
  /** Largest request body, in bytes (default 1048576, 1 MiB); past it, 413 PAYLOAD_TOO_LARGE. */
  MAX_BODY_BYTES?: string
  /** Comma-separated origins browsers may call the API from (`*`: any); unset, no CORS headers at all. */
  CORS_ORIGINS?: string
  /** The queue change events go through to WEBHOOK_URLS (wrangler.toml's [[queues.producers]]; docs/webhooks.md). */
  CHANGE_EVENTS?: Queue
  /** Comma-separated URLs (at most 10) every change event is POSTed to, each within TOOL_ALLOWED_HOSTS; unset, none. */
  WEBHOOK_URLS?: string
  /** The HMAC-SHA256 key of each event's X-Signature (a secret); needed when WEBHOOK_URLS is set. */
  WEBHOOK_SECRET?: string
  /** Distinct tool calls one render may make; later ones are refused without a request (default 64). */
  TOOL_MAX_CALLS?: string
  /** Bytes of one tool answer at most (default 1048576, 1 MiB). */
  TOOL_MAX_BYTES?: string
  /** Bytes one environ read (GET /api/environs/{id}, MCP resources/read) loads at most, keys and values below it (default 1 MiB). */
  ENVIRON_MAX_BYTES?: string
  /** Bytes of one /mcp answer, a batch's in all (default 4 MiB): messages past it are answered with an error, not run. */
  MCP_MAX_BYTES?: string
  /** Bytes of one LLM answer, or of one streamed answer in all, at most (default 4194304, 4 MiB). */
  LLM_MAX_BYTES?: string
  /** Comma-separated waits before each retry of an LLM request, in ms: one per retry, at most 5 (default `100,300`). */
  LLM_RETRY_DELAYS_MS?: string
  /** Deadline of a whole chat, every provider request and tool round of it, in ms (default 120000). */
  CHAT_TIMEOUT_MS?: string
  /** Tool rounds a chat may ask for with `max_steps` at most (default 8). */
  CHAT_MAX_STEPS?: string
  /** Characters of one tool call's arguments a chat makes at most; past them the loop stops (default 1048576). */
  CHAT_ARGUMENTS_MAX_BYTES?: string
  /** Times a chat asks again when the answer does not match the prompt's `returns` schema (default 2; 0: never). */
  LLM_OUTPUT_RETRIES?: string
  /** The model a prompt test's `judge` assertion asks when it names none (default LLM_DEFAULT_MODEL). */
  TEST_JUDGE_MODEL?: string
  /** Cases one prompt's `tests` may keep (default 50). */
  TEST_MAX_CASES?: string
  /** Judge assertions one test run may send to a model (default 20; 0: none, they are skipped). */
  TEST_MAX_JUDGE_CALLS?: string
}
