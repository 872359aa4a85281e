import { ServiceError, notFound } from '../errors'
import { keyToPath, kindPrefix, pathToKey } from '../store'
import type { Store } from '../store'
import { asPromptExtension } from './extensions'
import type { Extension } from './extensions'
import { checkId, idProblem } from './ids'
import { jsonRecord, skip, unusable } from './records'
import { normalizeParameters, regexIn } from './parameters'
import { unsafeSchemas } from './record-schemas'
import { describeHazard, safeSchema } from './schema-safety'
import { schemaProblems } from './validate'
import type { PromptRecord, Skip } from './types'
import { validatePrompt } from './validators.generated'

export const decodePrompt = jsonRecord<PromptRecord>(validatePrompt, (record) => unsafeSchemas('templates', record))

export interface Prompt {
  /** `{extension}.{prompt}`, or `{a}.{b}` for one stored at shenma:templates:{a}:{b}. */
  id: string
  origin: 'extension' | 'direct'
  /** The Redis key the prompt was read from. */
  key: string
  record: PromptRecord
  /** The contributing extension, for prompts of origin `extension`. */
  extension?: Extension
}

export type PromptKind = 'prompt' | 'messages'

/** A prompt's description; one without its own is described by its extension. */
export function promptDescription(prompt: Prompt): string | undefined {
  return prompt.record.description ?? prompt.extension?.record.description
}

export function promptKind(prompt: Prompt): PromptKind {
  return prompt.record.messages === undefined ? 'prompt' : 'messages'
}

/**
 * One prompt by id, in a single Redis round trip: the direct key and every
 * extension the id could belong to (an id `a.b.c` may be extension `a`'s
 * prompt `b.c` or extension `a.b`'s prompt `c`) are read together. The id
 * is checked first (ids.ts): its dots bound how many keys that read holds.
 */
export async function getPrompt(store: Store, id: string): Promise<Prompt> {
  return (await findPrompt(store, id, () => [])).prompt
}

/**
 * getPrompt, reading in the same round trip the keys `also` names for the
 * keys the prompt may be stored at (direct first, then by extension):
 * their values come back beside the prompt and its record's text, in that order.
 */
export async function findPrompt(
  store: Store,
  id: string,
  also: (candidates: readonly string[]) => readonly string[],
): Promise<{ prompt: Prompt; text: string; also: (string | null)[] }> {
  checkId('prompt', id)
  const directKey = pathToKey('templates', id)
  const splits = extensionSplits(id)
  const candidates = [directKey, ...splits.map((s) => s.key)]
  const extra = also(candidates)
  const raws = await store.values([...candidates, ...extra])
  const found = (prompt: Prompt, text: string) => ({
    prompt,
    text,
    also: raws.slice(candidates.length).map((raw) => raw ?? null),
  })

  let why: string | undefined
  const direct = raws[0] ?? null
  if (direct !== null) {
    const decoded = decodePrompt(direct)
    if (decoded.ok) return found({ id, origin: 'direct', key: directKey, record: decoded.value }, direct)
    why = unusable(directKey, decoded.reason)
  }
  for (const [i, split] of splits.entries()) {
    const raw = raws[i + 1] ?? null
    const extension = asPromptExtension(split.extensionId, split.key, raw)
    if (typeof extension === 'string') {
      if (raw !== null) why ??= `belongs to extension '${split.extensionId}', which ${extension}`
      continue
    }
    const prompt = contributedPrompts(extension, []).find((p) => p.id === id)
    if (prompt) return found(prompt, raw as string)
  }
  throw notFound('prompt', id, why)
}

/** What a draft is named in its errors: `template: draft:1:7: ...`. */
export const DRAFT_ID = 'draft'

/**
 * A prompt given in a request rather than read from Redis (a draft), its
 * record checked by the schema a stored prompt's is; its templates are
 * parsed when it renders. 400 BAD_REQUEST names what is wrong, by JSON path.
 * Its parameters may hold no regular expression (regexIn says why): only a
 * published prompt's may; nor anything else whose validation could be
 * super-linear (schema-safety.ts), 400 naming the keyword.
 */
export function draftPrompt(record: unknown): Prompt {
  const problems = schemaProblems(validatePrompt, record)
  if (problems.length > 0) {
    const said = problems.map((p) => `${p.path} ${p.problem}`).join('; ')
    throw new ServiceError('BAD_REQUEST', `the draft is not a valid prompt: ${said}`)
  }
  const prompt: Prompt = { id: DRAFT_ID, origin: 'direct', key: DRAFT_ID, record: record as PromptRecord }
  const regex = regexIn(normalizeParameters(prompt.record.parameters), '$.parameters')
  if (regex) {
    throw new ServiceError(
      'BAD_REQUEST',
      `a draft's parameters may hold no regular expression, and ${regex} is one: publish the prompt to check args with it`,
    )
  }
  const hazard = safeSchema(normalizeParameters(prompt.record.parameters))
  if ('keyword' in hazard) {
    throw new ServiceError('BAD_REQUEST', `the draft's parameters are refused: ${describeHazard(hazard)}`, {
      extra: { keyword: hazard.keyword, at: hazard.at },
    })
  }
  return prompt
}

/**
 * A draft of a stored prompt: the fields given replace the record's, the
 * others kept, checked as a whole (draftPrompt). A template given, `prompt`
 * or `messages`, replaces the stored one of either kind.
 */
export function draftOver(stored: PromptRecord, given: Record<string, unknown>): Prompt {
  const template = given.prompt !== undefined || given.messages !== undefined
  const kept = Object.entries(stored).filter(([name]) => !template || (name !== 'prompt' && name !== 'messages'))
  const fields = Object.entries(given).filter(([, value]) => value !== undefined)
  return draftPrompt(Object.fromEntries([...kept, ...fields]))
}

/**
 * The prompt `id` as the text `raw` of the record at `key` holds it (a
 * version of that record): a direct prompt, or one its extension
 * contributes. A reason, worded to follow "the record", when it holds none.
 */
export function promptIn(id: string, key: string, raw: string): Prompt | string {
  if (key.startsWith(kindPrefix('templates'))) {
    const decoded = decodePrompt(raw)
    return decoded.ok ? { id, origin: 'direct', key, record: decoded.value } : decoded.reason
  }
  const extensionId = keyToPath('extensions', key)
  const extension = asPromptExtension(extensionId, key, raw)
  if (typeof extension === 'string') return extension
  return contributedPrompts(extension, []).find((p) => p.id === id) ?? `contributes no prompt '${id}'`
}

/** The prompts an extension contributes; a second prompt of the same name is skipped. */
function contributedPrompts(extension: Extension, skipped: Skip[]): Prompt[] {
  return contributions(extension).flatMap((entry) => {
    if ('record' in entry) return [entry]
    skipped.push(skip(extension.key, entry.reason))
    return []
  })
}

/**
 * Each of an extension's `contributes.prompts`, by index: its prompt, or why
 * none is served (not logged here): an id no request can name, or a name
 * given twice (the first is served).
 */
export function contributions(extension: Extension): (Prompt | { reason: string })[] {
  const ids = new Set<string>()
  return (extension.record.contributes.prompts ?? []).map((record, i) => {
    const id = `${extension.id}.${record.name}`
    const problem = idProblem('prompt', id)
    // Not quoted: the name is what is wrong, and may be long.
    if (problem) return { reason: `contributes prompts[${i}], whose id no request can name (a prompt id ${problem})` }
    if (ids.has(id)) return { reason: `contributes prompt '${record.name}' twice; the first is served` }
    ids.add(id)
    return { id, origin: 'extension', key: extension.key, record, extension }
  })
}

function extensionSplits(id: string): { extensionId: string; key: string }[] {
  const splits: { extensionId: string; key: string }[] = []
  for (let dot = id.indexOf('.'); dot > 0 && dot < id.length - 1; dot = id.indexOf('.', dot + 1)) {
    const extensionId = id.slice(0, dot)
    splits.push({ extensionId, key: pathToKey('extensions', extensionId) })
  }
  return splits
}
