/**
 * Which prompts' tests a label's promotion must run: the prompts the label
 * changes, and those whose templates read a shared variable or call a tool
 * the label changes (found by the static analysis a render plans with),
 * as the label sees the catalogue.
 */
import { basePaths, findTools, listPrompts, parsePrompt } from '../catalog'
import type { Prompt } from '../catalog'
import { ServiceError } from '../errors'
import { promote } from '../publish'
import type { Promotion } from '../publish'
import { LabeledStore, commandsOf } from '../store'
import type { Store } from '../store'
import { ParseError } from '../template'
import type { Path } from '../template'

/**
 * Prompts of the label's catalogue looked through at most (one listing
 * page): past it, LIMIT_EXCEEDED, and the gate's way past is `force`.
 */
export const MAX_AFFECTED_SCAN = 1000

/** The shared variables naming tool modules' base URLs (basePaths): a change under it moves the tools' calls. */
const MODULES = 'modules'

/**
 * The prompts that have tests among those label `label` affects, sorted:
 * the prompts it changes (directly, or as an extension's contributions),
 * and every prompt whose templates read a variable it changes (an environ's
 * id is a path prefix; a template reading the whole root reads them all)
 * or call a tool it changes. Prompts with no tests have nothing to run and
 * are left out.
 */
export async function affectedPrompts(store: Store, label: string): Promise<{ ids: string[] }> {
  // The embedded store holds no labels: a label there changes nothing (and its promote would refuse to plan).
  if (commandsOf(store) === undefined) return { ids: [] }
  const changes = await promote(store, label, { dryRun: true, historyLimit: 1 })
  return affectedBy(store, label, changes)
}

/** affectedPrompts for changes already read (the gate reads them once, to promote exactly those). */
export async function affectedBy(
  store: Store,
  label: string,
  changes: readonly Promotion[],
): Promise<{ ids: string[] }> {
  if (changes.length === 0) return { ids: [] }
  const { ids, complete } = await scanAffected(new LabeledStore(store, label), changes, hasTests)
  if (!complete) {
    throw new ServiceError(
      'LIMIT_EXCEEDED',
      `finding the prompts label '${label}' affects looks through ${MAX_AFFECTED_SCAN} prompts at most, and its catalogue holds more: ` +
        'promote with force=true to skip its tests',
      { extra: { limit: 'MAX_AFFECTED_SCAN' } },
    )
  }
  return { ids }
}

/** A changed record: its kind and id. */
export interface ChangedRecord {
  kind: Promotion['kind']
  id: string
}

/**
 * Every prompt of `view` (a label's view, or the base store) that `changes`
 * affect, as affectedBy finds them but with or without tests: sorted, and
 * `complete: false` when the catalogue holds more than MAX_AFFECTED_SCAN
 * prompts (only the first ones were looked through).
 */
export async function promptsAffected(
  view: Store,
  changes: readonly ChangedRecord[],
): Promise<{ ids: string[]; complete: boolean }> {
  if (changes.length === 0) return { ids: [], complete: true }
  return scanAffected(view, changes, () => true)
}

function hasTests(prompt: Prompt): boolean {
  return (prompt.record.tests?.length ?? 0) > 0
}

/** The prompts among the first MAX_AFFECTED_SCAN of `view` that `candidate` keeps and `changes` affect. */
async function scanAffected(
  view: Store,
  changes: readonly ChangedRecord[],
  candidate: (prompt: Prompt) => boolean,
): Promise<{ ids: string[]; complete: boolean }> {
  const ids = (kind: Promotion['kind']) => new Set(changes.filter((c) => c.kind === kind).map((c) => c.id))
  const prompts = ids('prompts')
  const extensions = ids('extensions')
  const tools = ids('tools')
  const environs = [...ids('environs')].map((id) => id.split('.'))

  const listed = await listPrompts(view, { limit: MAX_AFFECTED_SCAN })
  const candidates = listed.items.filter(candidate)
  const changed = (prompt: Prompt) =>
    prompts.has(prompt.id) || (prompt.extension !== undefined && extensions.has(prompt.extension.id))
  const reading = environs.length > 0 || tools.size > 0 ? await readers(view, candidates, environs, tools) : new Set()
  return {
    ids: candidates.filter((p) => changed(p) || reading.has(p)).map((p) => p.id),
    complete: listed.next === null,
  }
}

/** The prompts of `candidates` whose templates read one of `environs` or call one of `tools`. */
async function readers(
  view: Store,
  candidates: readonly Prompt[],
  environs: readonly Path[],
  tools: ReadonlySet<string>,
): Promise<Set<Prompt>> {
  const analyses = new Map(
    candidates.flatMap((prompt) => {
      const analysis = analysisOf(prompt)
      return analysis === undefined ? [] : [[prompt, analysis] as const]
    }),
  )
  // A tool's module base URL is a shared variable its calls read (as the render loads it): looked up only when it changed.
  const modules = environs.some((path) => path[0] === MODULES)
  const called = modules
    ? await findTools(view, new Set([...analyses.values()].flatMap((a) => a.functions)))
    : { items: [] }
  const toolsById = new Map(called.items.map((tool) => [tool.id, tool]))
  const found = new Set<Prompt>()
  for (const [prompt, { paths, functions }] of analyses) {
    const read = [...paths, ...basePaths(functions.flatMap((name) => toolsById.get(name) ?? []))]
    if (functions.some((name) => tools.has(name)) || read.some((path) => environs.some((e) => overlap(path, e))))
      found.add(prompt)
  }
  return found
}

/**
 * What a prompt's templates read and call; undefined when they do not
 * parse: that fails whatever a label changes in variables or tools (calls
 * are left unchecked here), so only a change of the prompt itself runs it.
 */
function analysisOf(prompt: Prompt): { paths: readonly Path[]; functions: readonly string[] } | undefined {
  try {
    return parsePrompt(prompt).analysis
  } catch (e) {
    if (e instanceof ParseError) return undefined
    throw e
  }
}

/** One path lies under the other (or they are one): reading one reads a change of the other. */
function overlap(a: Path, b: Path): boolean {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false
  return true
}
