import { ServiceError } from '../errors'
import { keyToId, pathToKey } from '../store'
import type { Kind } from '../store'

/**
 * What an id may look like, checked before any Redis request: an id names
 * keys (a prompt id its direct key and one extension key per dot), so an
 * unbounded id is an unbounded read. The routes' path parameters are
 * declared with the same rules (functions/shapes.ts), so OpenAPI shows them,
 * and a stored key no id could name is skipped like an invalid record.
 */
export const MAX_ID_LENGTH = 256
/** A prompt id reads one extension key per dot. */
export const MAX_PROMPT_DOTS = 8
export const MAX_ENVIRON_SEGMENTS = 32

export type IdKind = 'prompt' | 'extension' | 'environ' | 'tool'

export interface IdRule {
  /** Checked after the length, which bounds the work of matching it. */
  pattern: RegExp
  /** What the pattern asks, to follow "the prompt id". */
  problem: string
}

/** Segments separated by dots, none empty and none holding ':' (the key separator), `most` of them at most. */
function segments(most?: number): RegExp {
  return new RegExp(`^[^.:]+(?:\\.[^.:]+)${most === undefined ? '*' : `{0,${most - 1}}`}$`)
}

const SEGMENTS = "no segment empty, no ':'"

export const ID_RULES: Readonly<Record<IdKind, IdRule>> = {
  prompt: {
    pattern: segments(MAX_PROMPT_DOTS + 1),
    problem: `must be segments separated by at most ${MAX_PROMPT_DOTS} dots, ${SEGMENTS}`,
  },
  extension: { pattern: segments(), problem: `must be segments separated by dots, ${SEGMENTS}` },
  environ: {
    pattern: segments(MAX_ENVIRON_SEGMENTS),
    problem: `must be at most ${MAX_ENVIRON_SEGMENTS} segments separated by dots, ${SEGMENTS}`,
  },
  // A function name: a tool key with ':' written as '_'.
  tool: { pattern: /^[^:]+$/, problem: "must be a function name, with no ':'" },
}

export const TOO_LONG = `must be at most ${MAX_ID_LENGTH} characters`

/** Why `id` cannot be an id of `kind`, worded to follow "the prompt id"; undefined when it can. */
export function idProblem(kind: IdKind, id: string): string | undefined {
  if (id.length > MAX_ID_LENGTH) return TOO_LONG
  const rule = ID_RULES[kind]
  return rule.pattern.test(id) ? undefined : rule.problem
}

/** 400 BAD_REQUEST for an id that breaks its rule, before anything is read for it. */
export function checkId(kind: IdKind, id: string): void {
  const problem = idProblem(kind, id)
  if (problem) throw new ServiceError('BAD_REQUEST', `the ${kind} id ${problem}`)
}

/** The most path segments a key of a kind may have for an id to name it, where there is a most. */
const MAX_KEY_SEGMENTS: Readonly<Partial<Record<Kind, number>>> = {
  templates: MAX_PROMPT_DOTS + 1,
  environs: MAX_ENVIRON_SEGMENTS,
}

/**
 * Why no id can name a stored key, worded to follow the key; undefined when
 * one can. A `.` inside a key segment would make its id (`:` written as `.`)
 * name another key; an empty segment, or an id past the limits above, cannot
 * be asked for. Tool ids are function names, looked up by listing: only
 * their length counts.
 */
export function unnamable(kind: Kind, key: string): string | undefined {
  const id = keyToId(kind, key)
  if (kind !== 'tools' && pathToKey(kind, id) !== key) return "has a '.' inside a key segment, so no id can name it"
  if (id.length > MAX_ID_LENGTH) return `has an id longer than ${MAX_ID_LENGTH} characters, so no id can name it`
  if (kind === 'tools') return undefined
  const segments = id.split('.')
  if (segments.includes('')) return 'has an empty path segment, so no id can name it'
  const most = MAX_KEY_SEGMENTS[kind]
  if (most !== undefined && segments.length > most) return `has more than ${most} path segments, so no id can name it`
  return undefined
}
