import type { AuditEntry, AuditPage, AuditQuery } from '../lib/changes/audit'
import { RECORD_KIND } from '../lib/catalog'
import type { PageRequest, Paged, RecordKind } from '../lib/catalog'
import type { Promotion } from '../lib/publish'
import { keyToId } from '../lib/store'
import type { VersionEntry } from '../lib/store'
import { PartlyPublished } from './backend'
import type { RolloutAnswer } from '../lib/rollout'
import type { Backend, PromoteOptions, Published, RolloutRequest, Versions, WriteTo } from './backend'
import type { RecordFile } from './files'

/** A request to the service may take this long before the CLI gives up on it (unless the call says otherwise). */
const TIMEOUT_MS = 30_000

/**
 * An error answer of the service (`code` as it answered), or a request that
 * got no answer. `body` is the error's JSON answer, for the fields some codes
 * add (TESTS_FAILED's `report`).
 */
export class RemoteError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly body: Readonly<Record<string, unknown>> = {},
  ) {
    super(message)
  }
}

/** The service's JSON answers, `{"status": "success", "data": ...}`, over fetch. */
export class ApiClient {
  readonly #base: URL
  readonly #token: string | undefined

  /** Throws a TypeError when `base` is not an http(s) URL. */
  constructor(base: string, token: string | undefined) {
    let url: URL | undefined
    try {
      url = new URL(base.endsWith('/') ? base : `${base}/`)
    } catch {
      url = undefined
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new TypeError(`the deployment's URL '${base}' is not an http(s) URL`)
    }
    this.#base = url
    this.#token = token
  }

  get origin(): string {
    return this.#base.href.replace(/\/$/, '')
  }

  /** `data` of a success, the answer's headers and its `next_cursor` (a listing's); a RemoteError for anything else. */
  async call<T>(
    method: string,
    path: string,
    query: Record<string, string | undefined>,
    body?: unknown,
    timeoutMs = TIMEOUT_MS,
  ): Promise<{ data: T; headers: Headers; next: string | null }> {
    const url = new URL(path, this.#base)
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, value)
    const headers: Record<string, string> = {}
    if (this.#token) headers.authorization = `Bearer ${this.#token}`
    if (body !== undefined) headers['content-type'] = 'application/json'
    let res: Response
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      })
    } catch (e) {
      const why = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e)
      throw new RemoteError('UNREACHABLE', `cannot reach ${this.origin}: ${why}`, 0)
    }
    const text = await res.text()
    let answer: { status?: string; code?: string; message?: string; data?: unknown; next_cursor?: string | null }
    try {
      answer = JSON.parse(text) as typeof answer
    } catch {
      const what = `${method} ${url.pathname} answered ${res.status} with something that is not JSON`
      throw new RemoteError(`HTTP_${res.status}`, `${what}: ${text.slice(0, 200)}`, res.status)
    }
    if (!res.ok || answer.status !== 'success') {
      const { code, message } = answer
      throw new RemoteError(code ?? `HTTP_${res.status}`, message ?? text.slice(0, 200), res.status, answer)
    }
    return { data: answer.data as T, headers: res.headers, next: answer.next_cursor ?? null }
  }

  /** A page of a listing (`?limit`, `?cursor`), as lib/catalog's allPages walks one. */
  async page<T>(path: string, query: Record<string, string | undefined>, page: PageRequest): Promise<Paged<T>> {
    const asked = { ...query, cursor: page.cursor, limit: page.limit === undefined ? undefined : String(page.limit) }
    const { data, next } = await this.call<T[]>('GET', path, asked)
    return { items: data, skipped: [], next }
  }
}

/**
 * A deployment's write API (PUT and DELETE of records, their versions,
 * promote), enabled there by ADMIN_TOKEN. Without a label, requests say
 * `?label=` (empty): the base, whatever the deployment's PROMPT_LABEL.
 */
export class ApiBackend implements Backend {
  readonly transactional = false
  readonly where: string
  readonly #api: ApiClient

  constructor(base: string, token: string | undefined) {
    this.#api = new ApiClient(base, token)
    this.where = `${this.#api.origin} (write API)`
  }

  /**
   * One PUT per record, in order, each with `?skip_unchanged=true` (the
   * service leaves a record stored as it is unchanged); a failure stops
   * there, and what was written before stays.
   */
  async publish(records: readonly RecordFile[], to: WriteTo): Promise<Published[]> {
    const written: Published[] = []
    for (const { file, kind, key, value } of records) {
      const apiKind = RECORD_KIND[kind]
      const id = keyToId(kind, key)
      try {
        const answer = await this.#put(apiKind, id, value, to, true)
        written.push({ file, key: answer.key, version: answer.version, unchanged: answer.unchanged === true })
      } catch (e) {
        throw new PartlyPublished(written, key, e)
      }
    }
    return written
  }

  async rollout(id: string, label: string | undefined): Promise<RolloutAnswer> {
    return (await this.#api.call<RolloutAnswer>('GET', recordPath('prompts', id, 'rollout'), { label: label ?? '' }))
      .data
  }

  async startRollout(id: string, rollout: RolloutRequest, label: string | undefined): Promise<RolloutAnswer> {
    return (
      await this.#api.call<RolloutAnswer>('PUT', recordPath('prompts', id, 'rollout'), { label: label ?? '' }, rollout)
    ).data
  }

  async endRollout(id: string, label: string | undefined): Promise<RolloutAnswer> {
    return (await this.#api.call<RolloutAnswer>('DELETE', recordPath('prompts', id, 'rollout'), { label: label ?? '' }))
      .data
  }

  async versions(kind: RecordKind, id: string, label: string | undefined): Promise<Versions> {
    const { data, headers } = await this.#api.call<VersionEntry[]>('GET', recordPath(kind, id, 'versions'), {
      label: label ?? '',
    })
    return { label: headers.get('x-prompt-label') ?? undefined, versions: data }
  }

  /** POST /api/{kind}/{id}/rollback: the deployment writes the version again. */
  async rollback(kind: RecordKind, id: string, n: number, to: WriteTo) {
    const query = { to: String(n), label: to.label ?? '', message: to.message }
    const { data } = await this.#api.call<{ key: string; version: number }>(
      'POST',
      recordPath(kind, id, 'rollback'),
      query,
    )
    return data
  }

  async #put(kind: RecordKind, id: string, value: unknown, to: WriteTo, skipUnchanged: boolean) {
    const query = { label: to.label ?? '', message: to.message, skip_unchanged: skipUnchanged ? 'true' : undefined }
    const path = recordPath(kind, id)
    const { data } = await this.#api.call<{ key: string; version: number; unchanged?: true }>('PUT', path, query, value)
    return data
  }

  async promote(from: string, options: PromoteOptions) {
    const { to, dryRun, message, force } = options
    const query = { to, dry_run: dryRun ? 'true' : undefined, message, force: force ? 'true' : undefined }
    const { data } = await this.#api.call<Promotion[]>('POST', `api/labels/${encodeURIComponent(from)}/promote`, query)
    return data
  }

  async audit(query: AuditQuery): Promise<AuditPage> {
    const { id, by, action, cursor } = query
    const asked = { id, by, action, cursor, limit: String(query.limit) }
    const { data, next } = await this.#api.call<AuditEntry[]>('GET', 'api/audit', asked)
    return { entries: data, next }
  }
}

function recordPath(kind: RecordKind, id: string, rest?: string): string {
  return `api/${kind}/${encodeURIComponent(id)}${rest === undefined ? '' : `/${rest}`}`
}
