/** What the helpers share: their bound on the strings they build, what a piece of their loops costs, Sprig's strval. */
import { KEY_COST } from '../costs'
import { tooLong } from '../errors'
import { formatValue } from '../fmt'
import type { Work } from '../exec/run'
import type { Value } from '../value'

/**
 * A piece a helper's loop handles beyond its characters (an element joined,
 * an occurrence replaced, a run mapped): a native call and a small string,
 * about what listing a map's key costs.
 */
export const PIECE_COST = KEY_COST

/** Refuses, before it is built, a string of `length` characters: past the output limit it could never be printed. */
export function within(length: number, w: Work): void {
  const max = w.limits.maxLength
  if (length > max) throw tooLong(max)
}

/** Sprig's strval: a string as it is, anything else as fmt's %v prints it (within the limits). */
export function strval(v: Value, w: Work): string {
  return typeof v === 'string' ? v : formatValue(v, w.limits)
}
