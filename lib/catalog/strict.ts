/**
 * The strict check of prompts against a catalogue (the CLI's `validate
 * --strict`): what a render would meet only once published, found before.
 * Every path a template reads must be there (a shared variable, or under
 * `.args` a declared parameter), every function it calls must exist, and a
 * tool called with positional operands must declare as many parameters.
 * Pure: the caller reads the catalogue (catalogueNeeds says what to read).
 */
import { isObject, ownValue, setOwn } from '../json'
import type { JsonObject } from '../json'
import { keyToFunc, keyToPath, kindPrefix } from '../store/keys'
import { BUILTIN_NAMES, HELPER_NAMES } from '../template'
import type { CallSite, ReadSite, Site, Template } from '../template'
import type { Findings, RecordFile } from './check'
import { nestRecords } from './environs'
import { normalizeParameters } from './parameters'
import { parsePrompt } from './parse'
import type { ParsedPrompt } from './parse'
import type { Prompt } from './prompts'
import type { ExtensionRecord, ParametersInput, PromptRecord, ToolRecord } from './types'

/** What templates can read and call where they are published. */
export interface Catalogue {
  /** The shared variables nested by path, as templates read them: at least under each name catalogueNeeds gave. */
  readonly variables: JsonObject
  /**
   * Each tool's function name, and its declared parameters' names in order
   * (they matter only for the functions catalogueNeeds lists).
   */
  readonly tools: ReadonlyMap<string, readonly string[]>
}

/** A prompt of a record file, parsed. */
export interface FilePrompt {
  readonly file: string
  /** Where the prompt is in its file: `$`, or `$.contributes.prompts[N]`. */
  readonly path: string
  readonly parsed: ParsedPrompt
  /** Its declared parameters' names. */
  readonly parameters: readonly string[]
  /** The tools it declares for the model to call on /chat. */
  readonly tools: readonly string[]
}

/** The function the service adds for named tool arguments (lib/tools/dict.ts). */
const DICT = 'dict'

/**
 * The prompts of records that passed checkRecords: a direct prompt, or each
 * prompt an extension contributes. Their templates parse (the check parsed them).
 */
export function filePrompts(records: readonly RecordFile[]): FilePrompt[] {
  return records.flatMap(({ file, kind, key, value }) => {
    if (kind === 'templates') {
      const record = value as PromptRecord
      return [filePrompt(file, '$', { id: keyToPath('templates', key), origin: 'direct', key, record })]
    }
    if (kind !== 'extensions') return []
    const extension = keyToPath('extensions', key)
    return ((value as ExtensionRecord).contributes.prompts ?? []).map((record, i) =>
      filePrompt(file, `$.contributes.prompts[${i}]`, {
        id: `${extension}.${record.name}`,
        origin: 'extension',
        key,
        record,
      }),
    )
  })
}

function filePrompt(file: string, path: string, prompt: Prompt): FilePrompt {
  const { parameters, tools = [] } = prompt.record
  return { file, path, parsed: parsePrompt(prompt), parameters: declaredParameters(parameters), tools }
}

/** The names of the parameters a prompt or tool declares, in order, whichever shape they are written in. */
export function declaredParameters(parameters: ParametersInput | undefined): string[] {
  return Object.keys(normalizeParameters(parameters).properties)
}

/**
 * What to read of the catalogue for these prompts: the shared variables
 * under each top-level name their templates read (`.args` aside), and the
 * functions called with more than one operand: the declared parameters of
 * those that are tools. Sorted.
 */
export function catalogueNeeds(prompts: readonly FilePrompt[]): { variables: string[]; functions: string[] } {
  const variables = new Set<string>()
  const functions = new Set<string>()
  for (const { site } of prompts.flatMap((p) => sitesOf(p) ?? [])) {
    if (site.kind === 'read' && site.path.length > 0 && site.path[0] !== 'args') variables.add(site.path[0] as string)
    if (site.kind === 'call' && site.positional > 1) functions.add(site.name)
  }
  return { variables: [...variables].sort(), functions: [...functions].sort() }
}

/**
 * The catalogue with the tools and environs of `records` added, as they
 * would be once published together (a record's value wins over the catalogue's).
 */
export function withRecords(catalogue: Catalogue, records: readonly RecordFile[]): Catalogue {
  const tools = new Map(catalogue.tools)
  for (const { kind, key, value } of records) {
    if (kind === 'tools') tools.set(keyToFunc(key), declaredParameters((value as ToolRecord).parameters))
  }
  const environs = records.filter((r) => r.kind === 'environs').sort((a, b) => (a.key < b.key ? -1 : 1))
  const published = nestRecords(environs, kindPrefix('environs').length).value
  return { variables: merged(catalogue.variables, published), tools }
}

/** `top` over `base`, objects merged member by member, neither changed. */
function merged(base: JsonObject, top: JsonObject): JsonObject {
  const out: JsonObject = { ...base }
  for (const [name, value] of Object.entries(top)) {
    const under = ownValue(base, name)
    setOwn(out, name, isObject(under) && isObject(value) ? merged(under, value) : value)
  }
  return out
}

/**
 * What a prompt's templates read or call that the catalogue lacks: each
 * tool it declares for the model that is not there; each missing variable,
 * undeclared parameter and unknown function once, where it is first used;
 * each call passing a tool more operands than it declares.
 * Errors, in the order of the templates' text; a warning when the analysis
 * gave up on a template set too intricate to follow.
 */
export function strictFindings(prompt: FilePrompt, catalogue: Catalogue): Findings {
  const findings: Findings = { errors: [], warnings: [] }
  const { file, path } = prompt
  prompt.tools.forEach((name, i) => {
    if (catalogue.tools.has(name)) return
    findings.errors.push({ file, where: `${path}.tools[${i}]`, message: `declares ${name}, which is not a tool` })
  })
  const sites = sitesOf(prompt)
  if (!sites) {
    const message = 'calls its templates in ways too intricate to check strictly (the analysis gave up)'
    findings.warnings.push({ file, where: path, message })
    return findings
  }
  const reported = new Set<string>()
  for (const { site, where, define } of sites) {
    const problem = site.kind === 'read' ? readProblem(site, prompt, catalogue) : callProblem(site, catalogue)
    if (!problem) continue
    if (problem.once !== undefined) {
      if (reported.has(problem.once)) continue
      reported.add(problem.once)
    }
    const message = define === undefined ? problem.message : `in template "${define}": ${problem.message}`
    findings.errors.push({ file, where, message })
  }
  return findings
}

interface Found {
  message: string
  /** What it is about, to report once; undefined: every site. */
  once?: string
}

function readProblem(site: ReadSite, prompt: FilePrompt, catalogue: Catalogue): Found | undefined {
  const [first, name] = site.path
  if (first === 'args') {
    if (name === undefined || prompt.parameters.includes(name)) return undefined
    return { message: `.args.${name} is not a declared parameter`, once: `args.${name}` }
  }
  const reads = `reads .${site.path.join('.')}`
  let node: unknown = catalogue.variables
  for (const [i, segment] of site.path.entries()) {
    const above = site.path.slice(0, i).join('.')
    if (!isObject(node)) {
      return { message: `${reads}, but ${above} is ${kindOf(node)}, which has no field ${segment}`, once: above }
    }
    if (!Object.hasOwn(node, segment)) {
      // Where a {{with}} over an index result found nothing, its body does not run.
      if (site.guarded !== undefined && i < site.guarded) return undefined
      const missing = site.path.slice(0, i + 1).join('.')
      return { message: `${reads}, but there is no shared variable ${missing}`, once: missing }
    }
    node = ownValue(node, segment)
  }
  return undefined
}

function callProblem(site: CallSite, catalogue: Catalogue): Found | undefined {
  const declared = catalogue.tools.get(site.name)
  if (!declared) {
    if (isGiven(site.name)) return undefined
    return { message: `calls ${site.name}, which is not a builtin, a helper or a tool`, once: `call ${site.name}` }
  }
  // One operand may be a map of named arguments (`dict`), which any tool takes (lib/tools/arguments.ts).
  if (site.positional <= 1 || site.positional <= declared.length) return undefined
  const names = declared.length === 0 ? 'none' : `${declared.length} (${declared.join(', ')})`
  return { message: `passes ${site.positional} arguments to ${site.name}, which declares ${names}` }
}

/** Whether a function is there whatever the catalogue: a builtin, a helper, or dict. */
function isGiven(name: string): boolean {
  return BUILTIN_NAMES.includes(name) || HELPER_NAMES.includes(name) || name === DICT
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return `a ${typeof value}`
}

/** A site, where it is in its file, and the {{define}} holding it when that is not a whole template text. */
interface Placed {
  site: Site
  where: string
  define: string | undefined
}

/**
 * The sites of a prompt's templates in the order of their text: each
 * message's (and what it calls), then the calls in templates nothing calls,
 * which the service's parse rejects all the same when they are unknown.
 * Undefined when the analysis of one of them gave up.
 */
function sitesOf(prompt: FilePrompt): Placed[] | undefined {
  const { templates } = prompt.parsed
  const set = templates[0] as Template
  const texts = templates.map((t) => t.name)
  const sites: Site[] = []
  for (const template of templates) {
    const own = template.analysis.sites
    if (!own) return undefined
    sites.push(...own)
  }
  const reached = new Set(sites.map((s) => s.template))
  for (const name of set.trees.keys()) {
    if (reached.has(name) || texts.includes(name)) continue
    const own = set.lookup(name)?.analysis.sites
    if (!own) return undefined
    sites.push(...own.filter((s) => s.kind === 'call' && s.template === name))
  }
  const placed = sites.map((site) => {
    const tree = set.trees.get(site.template)
    const text = Math.max(0, texts.indexOf(tree?.parseName ?? ''))
    const field = prompt.parsed.roles ? `messages[${text}].content` : 'prompt'
    return {
      site,
      text,
      where: `${prompt.path}.${field}:${site.line}:${site.column}`,
      define: site.template === tree?.parseName ? undefined : site.template,
    }
  })
  placed.sort((a, b) => a.text - b.text || a.site.line - b.site.line || a.site.column - b.site.column)
  return placed.map(({ site, where, define }) => ({ site, where, define }))
}
