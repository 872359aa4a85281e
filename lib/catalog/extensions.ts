import { notFound } from '../errors'
import { keyToPath, kindPrefix, pathToKey } from '../store'
import type { Store } from '../store'
import { checkId } from './ids'
import { unsafeSchemas } from './record-schemas'
import { jsonRecord, readKind, unusable } from './records'
import { nextAfter, startOf } from './paging'
import type { PageRequest, Paged } from './paging'
import type { ExtensionRecord } from './types'
import { validateExtension } from './validators.generated'

/** The only extension type this service serves; others belong to other services. */
export const PROMPT_EXTENSION = 'prompt'
const EXTENSIONS = kindPrefix('extensions')
export const decodeExtension = jsonRecord<ExtensionRecord>(validateExtension, (record) =>
  unsafeSchemas('extensions', record),
)

export interface Extension {
  /** The key without its prefix, `:` as `.`; the name prompt ids start with. */
  id: string
  key: string
  record: ExtensionRecord
}

/** A page of the prompt extensions, in key order (paging.ts): extensions of other types are left out. */
export async function listExtensions(store: Store, request: PageRequest = {}): Promise<Paged<Extension>> {
  const { from, limit } = startOf(request, [EXTENSIONS])
  const { records, skipped, read } = await readKind(store, 'extensions', decodeExtension, from?.key ?? '', limit)
  const items = records
    .filter(({ value }) => value.extensionType === PROMPT_EXTENSION)
    .map(({ key, value }) => ({ id: keyToPath('extensions', key), key, record: value }))
  return { items, skipped, next: nextAfter(read) }
}

export async function getExtension(store: Store, id: string): Promise<Extension> {
  checkId('extension', id)
  const key = pathToKey('extensions', id)
  const [raw] = await store.values([key])
  const extension = asPromptExtension(id, key, raw ?? null)
  if (typeof extension === 'string') throw notFound('extension', id, extension)
  return extension
}

/**
 * The extension stored at `key`, or why there is none to serve: a reason
 * worded to follow "extension 'id' ...". Invalid records are logged as skipped.
 */
export function asPromptExtension(id: string, key: string, raw: string | null): Extension | string {
  if (raw === null) return 'does not exist'
  const decoded = decodeExtension(raw)
  if (!decoded.ok) return unusable(key, decoded.reason)
  if (decoded.value.extensionType !== PROMPT_EXTENSION) {
    return `is not a prompt extension (extensionType '${decoded.value.extensionType}')`
  }
  return { id, key, record: decoded.value }
}
