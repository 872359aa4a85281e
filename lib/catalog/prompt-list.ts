import { keyToPath, kindPrefix, pathToKey } from '../store'
import type { Page, Store } from '../store'
import { PROMPT_EXTENSION, decodeExtension } from './extensions'
import type { Extension } from './extensions'
import { MAX_PROMPT_DOTS, idProblem } from './ids'
import { encodeCursor, startOf } from './paging'
import type { PageRequest, Paged, Position } from './paging'
import { contributions, decodePrompt } from './prompts'
import type { Prompt } from './prompts'
import { addressable, skip } from './records'
import type { Skip } from './types'

const EXTENSIONS = kindPrefix('extensions')
const TEMPLATES = kindPrefix('templates')

export interface PromptPageRequest extends PageRequest {
  /** Only the prompts whose id starts `{extension}.`. */
  extension?: string | undefined
}

/** The key ranges a listing walks: extensions (and `extra` keys before them), then direct prompts. */
interface Ranges {
  extensions: string
  extra: string[]
  templates: string
}

/**
 * A page of the prompts, in the order of the keys they are stored at: those
 * prompt extensions contribute (each extension's in its order; a page may
 * end inside one), then those stored directly under shenma:templates:.
 * A direct prompt overrides an extension's of the same id (a direct record
 * that fails validation overrides nothing), and of two extensions that
 * contribute one id (extension `a`'s prompt `b.c` and extension `a.b`'s
 * prompt `c`) the shorter extension id keeps it, the other is skipped: each
 * extension prompt of a page is checked against the keys that could take
 * its id, in the page's one batch, so a prompt is listed on one page only.
 * A page reads at most four times: the extension keys, their values, the
 * direct keys, and one batch of the direct values and the checks.
 */
export async function listPrompts(store: Store, request: PromptPageRequest = {}): Promise<Paged<Prompt>> {
  const { from, limit } = startOf(request, [EXTENSIONS, TEMPLATES], EXTENSIONS)
  const ranges = rangesOf(request.extension)
  if (ranges === undefined) return { items: [], skipped: [], next: null }
  const skipped: Skip[] = []

  const inTemplates = from?.key.startsWith(TEMPLATES) ?? false
  const walked = inTemplates ? undefined : await walkExtensions(store, ranges, from, limit, skipped)
  const found = walked?.prompts ?? []
  const room = limit - found.length
  // Once the extensions are done, the direct prompts fill the room left; with none left, one key tells whether any follow.
  const direct =
    walked?.next === undefined
      ? await store.page(ranges.templates, inTemplates ? (from as Position).key : '', Math.max(room, 1))
      : undefined
  const { keys: named, skipped: unnamed } = addressable('templates', room > 0 && direct ? direct.keys : [])
  skipped.push(...unnamed)

  const known = walked?.read ?? new Map<string, string | null>()
  const checks = found.flatMap(takers).filter((key) => !known.has(key))
  const toRead = [...new Set([...named, ...checks])]
  const raws = toRead.length === 0 ? [] : await store.values(toRead)
  toRead.forEach((key, i) => known.set(key, raws[i] ?? null))

  const contributed = new Map<string, Set<string>>()
  const items = found.filter((prompt) => served(prompt, known, contributed, skipped))
  for (const key of named) {
    const decoded = decodePrompt(known.get(key) ?? null)
    if (decoded.ok) items.push({ id: keyToPath('templates', key), origin: 'direct', key, record: decoded.value })
    else skipped.push(skip(key, decoded.reason))
  }
  const wanted = request.extension === undefined ? items : items.filter((p) => p.id.startsWith(`${request.extension}.`))
  return { items: wanted, skipped, next: nextOf(walked?.next, direct, room) }
}

/** The ranges of a listing of the prompts whose id starts `{extension}.`; undefined when no prompt id can. */
function rangesOf(extension: string | undefined): Ranges | undefined {
  if (extension === undefined) return { extensions: EXTENSIONS, extra: [], templates: TEMPLATES }
  const segments = extension.split('.')
  if (idProblem('prompt', extension) !== undefined || segments.length > MAX_PROMPT_DOTS) return undefined
  return {
    // Extensions `a` and `a.b` can contribute `a.b.x`, and so can every one under `a.b.`.
    extensions: `${pathToKey('extensions', extension)}:`,
    extra: segments.map((_, i) => pathToKey('extensions', segments.slice(0, i + 1).join('.'))),
    templates: `${pathToKey('templates', extension)}:`,
  }
}

/**
 * The extension prompts of a page, up to `limit`, from `from` on; `next`
 * where the next page starts, undefined when the extensions are done; `read`,
 * each extension key read and its value.
 */
async function walkExtensions(
  store: Store,
  ranges: Ranges,
  from: Position | undefined,
  limit: number,
  skipped: Skip[],
): Promise<{ prompts: Prompt[]; next: Position | undefined; read: Map<string, string | null> }> {
  const after = from?.key ?? ''
  const listed = await store.page(ranges.extensions, after, limit)
  const extra = ranges.extra.filter((key) => key > after || (key === after && from !== undefined && from.at > 0))
  const within = from !== undefined && from.at > 0 ? [from.key] : []
  const keys = [...new Set([...within, ...extra, ...listed.keys])].sort()
  const raws = await store.values(keys)
  const read = new Map(keys.map((key, i) => [key, raws[i] ?? null]))
  const { keys: named, skipped: unnamed } = addressable('extensions', listed.keys)
  skipped.push(...unnamed)
  const walkable = new Set([...within, ...extra, ...named])
  const inRange = new Set(listed.keys)

  const prompts: Prompt[] = []
  let previous = after
  for (const key of keys) {
    const raw = read.get(key) ?? null
    const start = key === from?.key ? from.at : 0
    // An extra key is only where an extension could be: none there is nothing to report.
    const extension = walkable.has(key) && (raw !== null || inRange.has(key)) ? extensionAt(key, raw) : undefined
    if (typeof extension === 'string') {
      if (start === 0) skipped.push(skip(key, extension))
    } else if (extension !== undefined) {
      for (const [i, entry] of contributions(extension).entries()) {
        if (i < start) continue
        if (!('record' in entry)) {
          skipped.push(skip(key, entry.reason))
          continue
        }
        if (prompts.length === limit)
          return { prompts, next: i === 0 ? { key: previous, at: 0 } : { key, at: i }, read }
        prompts.push(entry)
      }
    }
    previous = key
  }
  return { prompts, next: listed.more ? { key: previous, at: 0 } : undefined, read }
}

/** The prompt extension stored at `key`; undefined for none or one of another type; why, when it is unusable. */
function extensionAt(key: string, raw: string | null): Extension | string | undefined {
  const decoded = decodeExtension(raw)
  if (!decoded.ok) return decoded.reason
  if (decoded.value.extensionType !== PROMPT_EXTENSION) return undefined
  return { id: keyToPath('extensions', key), key, record: decoded.value }
}

/** The keys that could take an extension prompt's id: its direct key, and the shorter extensions that could contribute it. */
function takers(prompt: Prompt): string[] {
  const segments = (prompt.extension as Extension).id.split('.')
  const shorter = segments.slice(0, -1).map((_, i) => pathToKey('extensions', segments.slice(0, i + 1).join('.')))
  return [pathToKey('templates', prompt.id), ...shorter]
}

/**
 * Whether an extension prompt is served: no shorter extension contributes
 * its id (else it is skipped), and no direct prompt has it. `contributed`
 * keeps the ids each extension read contributes, worked out once a page.
 */
function served(
  prompt: Prompt,
  read: ReadonlyMap<string, string | null>,
  contributed: Map<string, Set<string>>,
  skipped: Skip[],
): boolean {
  const [direct, ...shorter] = takers(prompt)
  for (const key of shorter) {
    let ids = contributed.get(key)
    if (ids === undefined) {
      const raw = read.get(key) ?? null
      const extension = raw === null ? undefined : extensionAt(key, raw)
      const entries = typeof extension === 'object' ? contributions(extension) : []
      ids = new Set(entries.flatMap((entry) => ('record' in entry ? [entry.id] : [])))
      contributed.set(key, ids)
    }
    if (ids.has(prompt.id)) {
      skipped.push(skip(prompt.key, `contributes prompt id '${prompt.id}', already taken by ${key}`))
      return false
    }
  }
  const raw = read.get(direct as string) ?? null
  return raw === null || !decodePrompt(raw).ok
}

/**
 * The cursor after a page: inside the extensions when they are not done;
 * else after its last direct key when more follow, or, when the page had
 * no room left for any, at the start of the direct prompts if there are some.
 */
function nextOf(inExtensions: Position | undefined, direct: Page | undefined, room: number): string | null {
  if (inExtensions !== undefined) return encodeCursor(inExtensions)
  if (direct === undefined || direct.keys.length === 0) return null
  if (room === 0) return encodeCursor({ key: TEMPLATES, at: 0 })
  return direct.more ? encodeCursor({ key: direct.keys.at(-1) as string, at: 0 }) : null
}
