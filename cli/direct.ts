import { readAudit } from '../lib/changes/audit'
import type { AuditQuery } from '../lib/changes/audit'
import { recordVersions } from '../lib/catalog'
import type { RecordKind } from '../lib/catalog'
import { gatedPromote } from '../lib/prompt-tests'
import { promote, putTexts, rollbackRecord } from '../lib/publish'
import type { Settings } from '../lib/settings'
import { UpstashStore, withLabel } from '../lib/store'
import { endRollout, getRollout, putRollout } from '../lib/rollout'
import type { RolloutAnswer } from '../lib/rollout'
import type { Backend, PromoteOptions, Published, RolloutRequest, Versions, WriteTo } from './backend'
import type { RecordFile } from './files'

/** How long one Redis request may take, retries included: a CLI can wait longer than a render. */
const TIMEOUT_MS = 10_000

/** Upstash at `url`, for the CLI; throws a TypeError when `url` is not http(s). */
export function upstashStore(url: string, token: string): UpstashStore {
  try {
    return new UpstashStore({ url, token, timeoutMs: TIMEOUT_MS })
  } catch {
    throw new TypeError(`the Upstash URL '${url}' is not an http(s) URL`)
  }
}

/**
 * Upstash directly, through lib/'s own store and write code: what the
 * service does on a write, done from here. A publish is one Lua script
 * (lib/store/commit-script.ts), its records found unchanged decided in it.
 */
export class RedisBackend implements Backend {
  readonly transactional = true
  readonly where: string
  readonly #store: UpstashStore
  readonly #settings: Settings
  readonly #historyLimit: number

  /** Throws a TypeError when `url` is not http(s). */
  constructor(url: string, token: string, settings: Settings) {
    this.#store = upstashStore(url, token)
    this.#settings = settings
    this.#historyLimit = settings.historyLimit
    this.where = `${url} (Redis)`
  }

  async publish(records: readonly RecordFile[], to: WriteTo): Promise<Published[]> {
    const texts = records.map(({ key, value }) => ({ key, text: JSON.stringify(value) }))
    const options = { ...to, historyLimit: this.#historyLimit, skipUnchanged: true }
    const written = await putTexts(this.#store, texts, options)
    return written.map((put, i) => ({ file: (records[i] as RecordFile).file, ...put }))
  }

  rollout(id: string, label: string | undefined): Promise<RolloutAnswer> {
    return getRollout(this.#store, id, label)
  }

  startRollout(id: string, rollout: RolloutRequest, label: string | undefined): Promise<RolloutAnswer> {
    return putRollout(this.#store, id, label, rollout)
  }

  endRollout(id: string, label: string | undefined): Promise<RolloutAnswer> {
    return endRollout(this.#store, id, label)
  }

  async versions(kind: RecordKind, id: string, label: string | undefined): Promise<Versions> {
    const { layer, versions } = await recordVersions(withLabel(this.#store, label), kind, id)
    return { label: layer.label, versions }
  }

  rollback(kind: RecordKind, id: string, n: number, to: WriteTo) {
    return rollbackRecord(this.#store, kind, id, n, { ...to, historyLimit: this.#historyLimit })
  }

  /** Gated as the service's promote is: the affected prompts' tests first (render assertions: no model here). */
  async promote(from: string, options: PromoteOptions) {
    const { to, dryRun, message, force = false } = options
    const historyLimit = this.#historyLimit
    if (dryRun) return promote(this.#store, from, { to, dryRun, message, historyLimit })
    const settings = this.#settings
    const gate = { to, message, historyLimit, force, settings, renderOptions: settings.render }
    return (await gatedPromote(this.#store, from, gate)).promotions
  }

  audit(query: AuditQuery) {
    return readAudit(this.#store, query)
  }
}
