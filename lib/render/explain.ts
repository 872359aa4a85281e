import { ServiceError } from '../errors'
import { isObject, jsonPrefix } from '../json'
import type { JsonObject } from '../json'
import type { Store } from '../store'
import type { Analysis, Path } from '../template'

/** Shared-variable paths an explained render reports at most: a page's worth, never the whole catalogue's reads. */
export const MAX_VARIABLES_SEEN = 200
/** Characters of a value's JSON sent whole; a longer one is sent as its preview. */
export const MAX_VALUE_CHARS = 4096
/** Characters of a long value's JSON its preview holds. */
export const PREVIEW_CHARS = 2000

/** What the templates read and call, as an explained answer says it: also in a failed render's error body. */
export interface AnalysisReport {
  reads: string[]
  tools: string[]
  functions: string[]
}

/** The shared variables as a render saw them: what its explained answer reports (see variablesSeen). */
export interface Seen {
  /** The variables the templates read, the request's `variables` laid over them; `args` not among them. */
  vars: JsonObject
  /** The request's own variables (a draft's, a test case's), when it gave some. */
  overlay: JsonObject | undefined
  /** How long ago the copy of the variables was read from Redis; null where they are built in (the embedded store). */
  ageMs: number | null
}

/** One shared-variable path a template reads, with its value as the render saw it. */
export interface VariableSeen {
  path: string
  value?: unknown
  missing?: true
  overridden?: true
  truncated?: true
  preview?: string
  age_ms: number | null
}

export function analysisReport(analysis: Analysis, tools: readonly string[]): AnalysisReport {
  return {
    reads: analysis.paths.map((p) => (p.length === 0 ? '.' : p.join('.'))),
    tools: [...tools],
    functions: [...analysis.functions],
  }
}

/**
 * Each shared-variable path the templates read (not `.args…`), in the
 * analysis' order, at most MAX_VARIABLES_SEEN: its value as the render saw
 * it, or `missing`; a value whose JSON passes MAX_VALUE_CHARS as a preview
 * only. The values are the variables a render loaded, bounded by
 * ENVIRON_MAX_BYTES, and the request's, bounded by its body limit.
 */
export function variablesSeen(seen: Seen, paths: readonly Path[]): VariableSeen[] {
  return paths
    .filter((p) => p[0] !== 'args')
    .slice(0, MAX_VARIABLES_SEEN)
    .map((path) => {
      const entry: VariableSeen = { path: path.length === 0 ? '.' : path.join('.'), age_ms: seen.ageMs }
      if (seen.overlay !== undefined && overrides(seen.overlay, path)) entry.overridden = true
      const value = valueAt(seen.vars, path)
      if (value === undefined) return { ...entry, missing: true }
      // A variable may be up to ENVIRON_MAX_BYTES, 200 of them: only as much JSON as the answer can hold is written.
      const { text, whole } = jsonPrefix(value, MAX_VALUE_CHARS)
      if (whole) return { ...entry, value }
      return { ...entry, truncated: true, preview: text.slice(0, PREVIEW_CHARS) }
    })
}

/**
 * How long ago the copy of the shared variables a render used was read from
 * Redis: 0 when this render read them, null when they are built in.
 */
export function ageOf(store: Store, readAt: number | undefined, startedAt: number): number | null {
  if (store.kind === 'embedded') return null
  return readAt === undefined || readAt >= startedAt ? 0 : startedAt - readAt
}

/**
 * A failure of an explained render, with what its templates read and call
 * (when they compiled): the page shows them even when the render fails.
 */
export function withAnalysis(e: unknown, report: AnalysisReport | undefined): unknown {
  if (!(e instanceof ServiceError) || report === undefined) return e
  return new ServiceError(e.code, e.message, {
    cause: e.cause,
    extra: { ...e.extra, analysis: report },
    sensitive: e.sensitive,
  })
}

function valueAt(vars: JsonObject, path: Path): unknown {
  let at: unknown = vars
  for (const name of path) {
    if (!isObject(at) || !Object.hasOwn(at, name)) return undefined
    at = at[name]
  }
  return at
}

/** Whether `overlay` sets `path`, a path below it, or replaces an object above it. */
function overrides(overlay: JsonObject, path: Path): boolean {
  let at: unknown = overlay
  for (const name of path) {
    if (!isObject(at)) return true
    if (!Object.hasOwn(at, name)) return false
    at = at[name]
  }
  return true
}
