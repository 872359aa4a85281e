import { ServiceError } from '../errors'
import {
  LabeledStore,
  commandsOf,
  funcToKeys,
  historyKeys,
  listVersions,
  overlayKey,
  pathToKey,
  readVersion,
  rolloutKey,
  versionFrom,
} from '../store'
import type { Kind, Store, StoredVersion, VersionEntry } from '../store'
import { checkId } from './ids'
import type { IdKind } from './ids'
import { findPrompt, getPrompt, promptIn } from './prompts'
import type { Prompt } from './prompts'
import { environValue } from './records'
import { MAX_TOOL_KEYS, getTool, keyCount } from './tools'

/** The kinds as the API names them (`prompts` are stored under `templates`). */
export const RECORD_KINDS = ['extensions', 'prompts', 'environs', 'tools'] as const
export type RecordKind = (typeof RECORD_KINDS)[number]

export const STORED_AS: Readonly<Record<RecordKind, Kind>> = {
  extensions: 'extensions',
  prompts: 'templates',
  environs: 'environs',
  tools: 'tools',
}

/** The API's name of each stored kind: STORED_AS turned round. */
export const RECORD_KIND: Readonly<Record<Kind, RecordKind>> = {
  extensions: 'extensions',
  templates: 'prompts',
  environs: 'environs',
  tools: 'tools',
}

export const ID_KIND: Readonly<Record<RecordKind, IdKind>> = {
  extensions: 'extension',
  prompts: 'prompt',
  environs: 'environ',
  tools: 'tool',
}

/** Where a record is served from: its key in Redis, and the label when the label has its own. */
export interface Layer {
  key: string
  label?: string
}

/** What a read served: the version of the record, null when it was written by other means, and its label's. */
export interface Served {
  version: number | null
  label?: string
}

/**
 * The layer `store` serves the record at base key `key` from: the label's
 * own key when the label wrote it (or deleted it there), else the base's.
 */
export async function layerOf(store: Store, key: string): Promise<Layer> {
  if (!(store instanceof LabeledStore)) return { key }
  const own = overlayKey(store.label, key)
  const [raw] = await store.inner.values([own])
  return raw === null || raw === undefined ? { key } : { key: own, label: store.label }
}

/**
 * The keys that say which version of the record at base key `key` a read
 * through `store` serves: its history's count and head (lib/store/history.ts),
 * and under a label, the label's own key and its history's too.
 */
function servedKeys(store: Store, key: string): string[] {
  const base = historyKeys(key)
  if (!(store instanceof LabeledStore)) return [base.seq, base.head]
  const own = overlayKey(store.label, key)
  const mine = historyKeys(own)
  return [own, mine.seq, mine.head, base.seq, base.head]
}

/** The version of the record served as `text`, from the values of its servedKeys. */
async function servedFrom(store: Store, text: string | null, values: readonly (string | null)[]): Promise<Served> {
  if (!(store instanceof LabeledStore))
    return { version: await versionFrom(text, values[0] ?? null, values[1] ?? null) }
  const [own = null, seq = null, head = null, baseSeq = null, baseHead = null] = values
  if (own === null) return { version: await versionFrom(text, baseSeq, baseHead) }
  return { version: await versionFrom(text, seq, head), label: store.label }
}

/**
 * getPrompt, the version of its record served, and the rollout (lib/rollout)
 * of the layer serving it, as stored (null when none): in the same single
 * round trip, and so cached alike.
 */
export async function getServedPrompt(
  store: Store,
  id: string,
): Promise<{ prompt: Prompt; served: Served; rollout: string | null }> {
  let candidates: readonly string[] = []
  const label = store instanceof LabeledStore ? store.label : undefined
  const rollouts = label === undefined ? [rolloutKey(id)] : [rolloutKey(id), rolloutKey(id, label)]
  const { prompt, text, also } = await findPrompt(store, id, (keys) => {
    candidates = keys
    return [...rollouts, ...keys.flatMap((key) => servedKeys(store, key))]
  })
  const per = (also.length - rollouts.length) / candidates.length
  const at = rollouts.length + candidates.indexOf(prompt.key) * per
  const served = await servedFrom(store, text, also.slice(at, at + per))
  return { prompt, served, rollout: also[served.label === undefined ? 0 : 1] ?? null }
}

/**
 * The base key of a record named by its API id. A prompt's is the key it is
 * served from (an extension's prompt has its extension's); a tool's, found by
 * its function name. A record deleted since still has its versions: a prompt
 * then by its direct key, a tool by the history kept of it.
 */
export async function recordKey(store: Store, kind: RecordKind, id: string): Promise<string> {
  checkId(ID_KIND[kind], id)
  if (kind === 'prompts') return (await orMissing(getPrompt(store, id)))?.key ?? pathToKey('templates', id)
  if (kind !== 'tools') return pathToKey(STORED_AS[kind], id)
  const tool = await orMissing(getTool(store, id))
  if (tool) return tool.key
  // Deleted: the first key of the name whose version count is kept. A name of more keys than a lookup reads has
  // none found, as a tool lookup would find none.
  const commands = commandsOf(store)
  const keys = keyCount(id) <= MAX_TOOL_KEYS ? funcToKeys(id) : []
  const counts = commands && keys.length > 0 ? await commands.values(keys.map((k) => historyKeys(k).seq)) : []
  const key = keys.find((_, i) => (counts[i] ?? null) !== null)
  if (key === undefined) throw new ServiceError('NOT_FOUND', `tool '${id}' does not exist, and has no versions kept`)
  return key
}

/** The versions kept of a record, newest first, from the layer that serves it. */
export async function recordVersions(
  store: Store,
  kind: RecordKind,
  id: string,
): Promise<{ layer: Layer; versions: VersionEntry[] }> {
  const layer = await layerOf(store, await recordKey(store, kind, id))
  const commands = commandsOf(store)
  const versions = commands ? await listVersions(commands, layer.key) : []
  if (versions.length === 0 && (await store.values([layer.key]))[0] === null) {
    throw new ServiceError('NOT_FOUND', `${ID_KIND[kind]} '${id}' does not exist, and has no versions kept`)
  }
  return { layer, versions }
}

/** Version `n` of a record, with its value as the API serves values; VERSION_NOT_FOUND when it is not kept. */
export async function recordVersion(
  store: Store,
  kind: RecordKind,
  id: string,
  n: number,
): Promise<{ layer: Layer; version: StoredVersion; value: unknown }> {
  const layer = await layerOf(store, await recordKey(store, kind, id))
  const version = await keptVersion(store, layer.key, n, `${ID_KIND[kind]} '${id}'`)
  const decoded = version.text === null ? undefined : environValue(version.text)
  return { layer, version, value: decoded?.ok ? decoded.value : version.text }
}

/**
 * Prompt `id` exactly as version `n` of its record held it: the direct
 * prompt's record, or its extension's. A prompt deleted since is looked for
 * at its direct key.
 */
export async function promptAt(store: Store, id: string, n: number): Promise<{ prompt: Prompt; served: Served }> {
  const key = await recordKey(store, 'prompts', id)
  const layer = await layerOf(store, key)
  const version = await keptVersion(store, layer.key, n, `prompt '${id}'`)
  if (version.text === null) throw versionNotFound(`version ${n} of prompt '${id}' is its deletion`)
  const prompt = promptIn(id, key, version.text)
  if (typeof prompt === 'string') throw versionNotFound(`version ${n} of ${layer.key} ${prompt}`)
  return { prompt, served: layer.label === undefined ? { version: n } : { version: n, label: layer.label } }
}

async function keptVersion(store: Store, key: string, n: number, what: string): Promise<StoredVersion> {
  const commands = commandsOf(store)
  if (!commands) throw versionNotFound(`${what} has no versions: the embedded store keeps none`)
  const version = await readVersion(commands, key, n)
  if (!version) throw versionNotFound(`version ${n} of ${what} is not kept (see its versions)`)
  return version
}

function versionNotFound(message: string): ServiceError {
  return new ServiceError('VERSION_NOT_FOUND', message)
}

/** The value of a lookup, or undefined when it found nothing (404); other failures stand. */
async function orMissing<T>(lookup: Promise<T>): Promise<T | undefined> {
  try {
    return await lookup
  } catch (e) {
    if (e instanceof ServiceError && e.code === 'NOT_FOUND') return undefined
    throw e
  }
}
