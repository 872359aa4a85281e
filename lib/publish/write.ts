import { ID_KIND, STORED_AS, checkId, checkRecords, recordKey } from '../catalog'
import type { Problem, RecordKind } from '../catalog'
import { ServiceError, writesNeedRedis } from '../errors'
import { isObject } from '../json'
import {
  LabeledStore,
  Observed,
  TOMBSTONE,
  commandsOf,
  commitIf,
  historyKeys,
  keyToFunc,
  kindPrefix,
  noteWrite,
  overlayKey,
  pathToKey,
  versionFrom,
} from '../store'
import type { CommandStore, Store } from '../store'

/** What a write answers. */
export interface Written {
  id: string
  /** The key written: the base key, or the label's own. */
  key: string
  version: number
  label: string | null
  /** Present when the text was already stored as its newest version (WriteOptions.skipUnchanged): nothing written. */
  unchanged?: true
}

export interface WriteOptions {
  /** The label written to; none for the base. */
  label?: string | undefined
  /** Kept with the version. */
  message?: string | undefined
  /** The publisher writing, kept with the version. */
  by?: string | undefined
  historyLimit: number
  /**
   * Write no version of a record whose key holds this very text as its
   * newest version already: answer that version, `unchanged`. A publish of
   * what is published leaves the history as it was.
   */
  skipUnchanged?: boolean | undefined
  /** TEST_MAX_CASES: the cases a prompt written may keep. */
  maxCases?: number | undefined
}

/** One record putTexts handled: the key written (or left as it was) and its version. */
export interface PutText {
  key: string
  version: number
  unchanged: boolean
}

/** Reads and writes of a publish skipping unchanged records, before it gives up on records others keep writing. */
const ATTEMPTS = 5

/**
 * The key and text of a record about to be put, after checking it exactly
 * as the catalogue reads records: its schema, a grpc tool's descriptor, and
 * every template parsed. A record that would not be served is refused here
 * (400, TEMPLATE_SYNTAX for a template that does not parse), before
 * anything is written.
 */
export async function checkedRecord(
  kind: RecordKind,
  id: string,
  value: unknown,
  maxCases?: number,
): Promise<{ key: string; text: string }> {
  checkId(ID_KIND[kind], id)
  const text = JSON.stringify(value)
  if (kind === 'environs' && text === TOMBSTONE) {
    throw new ServiceError('BAD_REQUEST', `the body ${TOMBSTONE} is how a label marks a deleted record`)
  }
  const key = kind === 'tools' ? toolKey(id, value) : pathToKey(STORED_AS[kind], id)
  const { errors } = await checkRecords([{ file: 'body', kind: STORED_AS[kind], key, value }], { maxCases })
  if (errors.length > 0) throw invalidBody(kind, errors)
  if (kind === 'tools' && keyToFunc(key) !== id) {
    throw new ServiceError('BAD_REQUEST', `the tool's {module}_{name} is '${keyToFunc(key)}', not the tool_id '${id}'`)
  }
  return { key, text }
}

/** Writes a record checked by checkedRecord, with its version: under a label, to the label's own key. */
export async function putRecord(store: Store, kind: RecordKind, id: string, value: unknown, options: WriteOptions) {
  const { key, text } = await checkedRecord(kind, id, value, options.maxCases)
  return write(store, id, key, text, options)
}

/**
 * Deletes a record, with a version saying so. Under a label, the label hides
 * it (a tombstone), from its reads and lists; the base keeps it. A prompt
 * contributed by an extension is the extension's to change.
 */
export async function deleteRecord(store: Store, kind: RecordKind, id: string, options: WriteOptions) {
  const view = options.label === undefined ? store : new LabeledStore(store, options.label)
  const key = await recordKey(view, kind, id)
  if (kind === 'prompts' && !key.startsWith(kindPrefix('templates'))) {
    const extension = key.slice(kindPrefix('extensions').length).replaceAll(':', '.')
    throw new ServiceError('CONFLICT', `prompt '${id}' is contributed by extension '${extension}': change that instead`)
  }
  const [current] = await view.values([key])
  if (current === null || current === undefined) {
    throw new ServiceError('NOT_FOUND', `${ID_KIND[kind]} '${id}' does not exist${labelled(options.label)}`)
  }
  return write(store, id, key, options.label === undefined ? null : TOMBSTONE, options)
}

/**
 * Writes records already checked (the CLI's `publish` checks its files
 * first; null deletes), each with its version, in one transaction: under a
 * label, to the label's own keys. Answers each record's key written and new
 * version. With skipUnchanged, a record whose key already holds its text as
 * its newest version is left as it is; that decision and the writes are one
 * step (commitIf guards every key read), read again when another write
 * lands in between, ATTEMPTS times at most (409 CONFLICT after).
 */
export async function putTexts(
  store: Store,
  records: readonly { key: string; text: string | null }[],
  options: WriteOptions,
): Promise<PutText[]> {
  const commands = writable(store)
  const keys = records.map(({ key }) => (options.label === undefined ? key : overlayKey(options.label, key)))
  const changes = records.map(({ text }, i) => ({ key: keys[i] as string, text, message: options.message }))
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const observed = new Observed(commands)
    const stored = options.skipUnchanged ? await storedVersions(observed, changes) : []
    const writes = changes.filter((_, i) => stored[i] === undefined)
    // Nothing to write, nothing a guard must hold still for.
    const versions = writes.length === 0 ? [] : await commitIf(commands, observed.guards(), writes, options)
    if (versions === undefined) continue
    if (writes.length > 0) await noteWrite(commands)
    let written = 0
    return keys.map((key, i) => {
      const kept = stored[i]
      return kept === undefined
        ? { key, version: versions[written++] as number, unchanged: false }
        : { key, version: kept, unchanged: true }
    })
  }
  throw new ServiceError(
    'CONFLICT',
    `the records were written to while they were published, ${ATTEMPTS} times running: nothing was written; try again`,
  )
}

/**
 * Per change, the version its key already stores its text as, when that is
 * the newest version (lib/store/history.ts versionFrom); else undefined: a
 * text to write, or one written by other means since, which gets its version.
 */
async function storedVersions(
  store: Store,
  changes: readonly { key: string; text: string | null }[],
): Promise<(number | undefined)[]> {
  const values = await store.values(
    changes.flatMap(({ key }) => {
      const { seq, head } = historyKeys(key)
      return [key, seq, head]
    }),
  )
  return Promise.all(
    changes.map(async ({ text }, i) => {
      const [current = null, seq = null, head = null] = values.slice(3 * i, 3 * i + 3)
      if (current !== text) return undefined
      return (await versionFrom(text, seq, head)) ?? undefined
    }),
  )
}

/** One record's putTexts, answered as the write routes answer. */
async function write(
  store: Store,
  id: string,
  key: string,
  text: string | null,
  options: WriteOptions,
): Promise<Written> {
  const [written] = (await putTexts(store, [{ key, text }], options)) as [PutText]
  return {
    id,
    key: written.key,
    version: written.version,
    label: options.label ?? null,
    ...(written.unchanged ? { unchanged: true as const } : {}),
  }
}

/** The store writes go to: Redis; the embedded store is read-only. */
export function writable(store: Store): Store & CommandStore {
  const commands = commandsOf(store)
  if (!commands) {
    throw writesNeedRedis()
  }
  return commands
}

/** A tool's key from its own module and name; the id's when it has none (its schema then says what is missing). */
function toolKey(id: string, value: unknown): string {
  const { module, name } = isObject(value) ? value : {}
  if (typeof module === 'string' && typeof name === 'string' && module !== '' && name !== '') {
    return `${kindPrefix('tools')}${module}:${name}`
  }
  return pathToKey('tools', id)
}

function invalidBody(kind: RecordKind, errors: readonly Problem[]): ServiceError {
  const template = errors.some((e) => /:\d+:\d+$/.test(e.where ?? ''))
  const details = errors.map(({ where, message }) => (where ? { where, message } : { message }))
  const said = errors.map(({ where, message }) => (where ? `${where}: ${message}` : message)).join('; ')
  return new ServiceError(
    template ? 'TEMPLATE_SYNTAX' : 'BAD_REQUEST',
    `the body is not a valid ${ID_KIND[kind]} record: ${said}`,
    {
      extra: { details },
    },
  )
}

function labelled(label: string | undefined): string {
  return label === undefined ? '' : ` in label '${label}'`
}
