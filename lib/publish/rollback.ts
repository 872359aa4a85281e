import { recordVersion } from '../catalog'
import type { RecordKind } from '../catalog'
import { ServiceError } from '../errors'
import { baseKeyOf, keyToPath, kindPrefix, withLabel } from '../store'
import type { Store } from '../store'
import { putRecord } from './write'
import type { WriteOptions, Written } from './write'

/** What a rollback answers: the write, and the version written again. */
export interface RolledBack extends Written {
  to: number
}

/**
 * Writes version `n` of a record again, as a new version (message:
 * `rollback to version N` unless given), as `options.label` sees it: the
 * label's own record's version where it has one, else the base's. A
 * version that is a deletion has nothing to write again (409 CONFLICT);
 * a prompt contributed by an extension is rolled back with its extension.
 * The API's rollback route and the CLI's direct backend share this.
 */
export async function rollbackRecord(
  store: Store,
  kind: RecordKind,
  id: string,
  n: number,
  options: WriteOptions,
): Promise<RolledBack> {
  const { layer, version, value } = await recordVersion(withLabel(store, options.label), kind, id, n)
  if (version.deleted) {
    throw new ServiceError(
      'CONFLICT',
      `version ${n} of ${kind} ${id} is its deletion: there is no record to write again`,
    )
  }
  const baseKey = layer.label === undefined ? layer.key : baseKeyOf(layer.label, layer.key)
  if (kind === 'prompts' && baseKey.startsWith(kindPrefix('extensions'))) {
    const extension = keyToPath('extensions', baseKey)
    throw new ServiceError(
      'CONFLICT',
      `version ${n} of prompt ${id} is a version of the extension that contributes it: ` +
        `roll that back instead (rollback extensions ${extension} --to ${n})`,
    )
  }
  const message = options.message ?? `rollback to version ${n}`
  return { ...(await putRecord(store, kind, id, value, { ...options, message })), to: n }
}
