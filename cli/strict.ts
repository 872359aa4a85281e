import {
  allPages,
  catalogueNeeds,
  declaredParameters,
  filePrompts,
  getEnviron,
  idProblem,
  listTools,
  strictFindings,
  withRecords,
} from '../lib/catalog'
import type { Catalogue, Findings, ToolRecord } from '../lib/catalog'
import { setOwn } from '../lib/json'
import type { JsonObject } from '../lib/json'
import { withLabel } from '../lib/store'
import type { Store } from '../lib/store'
import { upstashStore } from './direct'
import type { RecordFile } from './files'
import type { Io, Options } from './io'
import { ApiClient } from './remote'
import { describeError } from '../lib/log'

/** What `validate --strict` reads: the variables under these top-level names, and these tools' parameters. */
type Needs = ReturnType<typeof catalogueNeeds>

/** Where `validate --strict` reads the catalogue from. */
export interface CatalogueReader {
  /** For messages: the URL, and how it is reached. */
  readonly where: string
  read(needs: Needs): Promise<Catalogue>
}

/** How to point `validate --strict` at a catalogue, for its misuse message. */
export const STRICT_HELP =
  "give a deployment's --url (its API token in --token, else API_TOKEN; or set AI_PROMPT_SHELL_URL), " +
  'or Upstash in UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (--token replaces the latter)'

/**
 * Where the catalogue is, or why that cannot be told. `--url` is a
 * deployment, as for `render`: a read needs only its API token. Otherwise
 * Upstash, from UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, then
 * the deployment AI_PROMPT_SHELL_URL names. `--label` reads that label's
 * catalogue; without it, the base, whatever the deployment's PROMPT_LABEL.
 */
export function catalogueReader(values: Options, io: Io): CatalogueReader | { misuse: string } {
  const env = io.env
  const deployment = (url: string): CatalogueReader =>
    new ApiReader(new ApiClient(url, values.token ?? (env.API_TOKEN || undefined)), values.label)
  try {
    if (values.url !== undefined) return deployment(values.url)
    const upstashUrl = env.UPSTASH_REDIS_REST_URL
    const upstashToken = values.token ?? env.UPSTASH_REDIS_REST_TOKEN
    if (upstashUrl && upstashToken) return new RedisReader(upstashUrl, upstashToken, values.label)
    if (env.AI_PROMPT_SHELL_URL) return deployment(env.AI_PROMPT_SHELL_URL)
    return { misuse: STRICT_HELP }
  } catch (e) {
    return { misuse: describeError(e) }
  }
}

/**
 * The strict findings of the records (those that passed `validate`'s
 * checks), against the catalogue with the records themselves added: they
 * are published together. Reads nothing when no record holds a prompt.
 */
export async function strictCheck(records: readonly RecordFile[], reader: CatalogueReader): Promise<Findings> {
  const prompts = filePrompts(records)
  const findings: Findings = { errors: [], warnings: [] }
  if (prompts.length === 0) return findings
  const catalogue = withRecords(await reader.read(catalogueNeeds(prompts)), records)
  for (const prompt of prompts) {
    const found = strictFindings(prompt, catalogue)
    findings.errors.push(...found.errors)
    findings.warnings.push(...found.warnings)
  }
  return findings
}

/**
 * The variables under each name, nested as templates read them: each as
 * `read` answers it, or left out when there is none (a name no environ id
 * can be is none, and is not asked for).
 */
async function variablesUnder(names: readonly string[], read: (name: string) => Promise<unknown>): Promise<JsonObject> {
  const variables: JsonObject = {}
  const values = await Promise.all(names.map((name) => (idProblem('environ', name) ? undefined : absent(read(name)))))
  names.forEach((name, i) => {
    if (values[i] !== undefined) setOwn(variables, name, values[i])
  })
  return variables
}

/** The value, or undefined for a NOT_FOUND (from the service or lib/catalog alike). */
async function absent<T>(value: Promise<T>): Promise<T | undefined> {
  try {
    return await value
  } catch (e) {
    if ((e as { code?: unknown }).code === 'NOT_FOUND') return undefined
    throw e
  }
}

/** A deployment's read API: GET /api/environs/{name} per name, the tool list (its pages), and the records of tools needed. */
class ApiReader implements CatalogueReader {
  readonly where: string

  readonly #api: ApiClient
  readonly #label: string | undefined

  constructor(api: ApiClient, label: string | undefined) {
    this.#api = api
    this.#label = label
    this.where = `${api.origin} (API)`
  }

  async read({ variables, functions }: Needs): Promise<Catalogue> {
    const query = { label: this.#label ?? '' }
    const get = async <T>(path: string) => (await this.#api.call<T>('GET', path, query)).data
    const [tree, listed] = await Promise.all([
      variablesUnder(variables, (name) => get(`api/environs/${encodeURIComponent(name)}`)),
      allPages((page) => this.#api.page<{ id: string }>('api/tools', query, page)),
    ])
    const ids = new Set(listed.items.map((t) => t.id))
    const wanted = functions.filter((f) => ids.has(f))
    const records = await Promise.all(wanted.map((id) => get<ToolRecord>(`api/tools/${encodeURIComponent(id)}`)))
    // Only the tools called with more than one operand have their parameters looked at.
    const tools = new Map<string, readonly string[]>([...ids].map((id) => [id, []]))
    wanted.forEach((id, i) => tools.set(id, declaredParameters((records[i] as ToolRecord).parameters)))
    return { variables: tree, tools }
  }
}

/** Upstash directly, read through lib/catalog as the service reads it. */
class RedisReader implements CatalogueReader {
  readonly where: string
  readonly #store: Store

  /** Throws a TypeError when `url` is not http(s). */
  constructor(url: string, token: string, label: string | undefined) {
    this.#store = withLabel(upstashStore(url, token), label)
    this.where = `${url} (Redis)`
  }

  async read({ variables }: Needs): Promise<Catalogue> {
    const [tree, listed] = await Promise.all([
      variablesUnder(variables, async (name) => (await getEnviron(this.#store, name)).value),
      allPages((page) => listTools(this.#store, page)),
    ])
    const tools = new Map(listed.items.map((t) => [t.id, declaredParameters(t.record.parameters)]))
    return { variables: tree, tools }
  }
}
