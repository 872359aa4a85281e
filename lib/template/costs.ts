/**
 * What work costs in the step budget (ExecuteOptions.maxSteps), in one
 * place. A step is a node walked or a range iteration, about 200 ns of CPU;
 * everything else a builtin, fmt or the executor does in bulk is counted in
 * characters of work, CHARS_PER_STEP to a step: reading a character in a
 * loop is one character of work. The other costs here are measured against
 * that, so that exhausting the budget takes about the same time whatever
 * does it.
 */

/** Characters of work to a step: about the time a node's walk takes. */
export const CHARS_PER_STEP = 64

/**
 * A character formatted (a printed number, map or escape), against one
 * copied as it is: building a result piece by piece is that much slower
 * than copying a string.
 */
export const BUILD_COST = 48

/** Listing a map's keys, per key. */
export const KEY_COST = 16

/** Sorting a map's keys: per key and per level of the sort, on top of the key's characters. */
const SORT_KEY_COST = 16

/**
 * What sorting `keys` costs: each key is compared at each of the log2(n)
 * levels of the sort, and a comparison may read the whole key (keys that
 * share a long prefix).
 */
export function sortCost(keys: readonly string[]): number {
  if (keys.length < 2) return 0
  let chars = 0
  for (const key of keys) chars += SORT_KEY_COST + key.length
  return chars * Math.ceil(Math.log2(keys.length))
}

/** An escaper (html, js, urlquery): per character it reads, and per character it asks its escape table about. */
export const ESCAPE_READ_COST = 2
export const ESCAPE_ASK_COST = 8

/**
 * Characters compared natively (one string === another of its length) per
 * character of work: the engine compares them tens of times faster than a
 * loop reads them, and a comparison may read both whole.
 */
export const COMPARED_PER_CHAR = 32

/** Looking a variable up, per variable passed from the innermost; copying the variables in scope, per variable. */
export const VARIABLE_SCAN_COST = 1
export const VARIABLE_COPY_COST = 16

/**
 * A Promise made from a pending value (one a function returned, or one made
 * from it): making it and its reaction cost about a step's worth of time, or
 * more as they fill the heap, and hold memory until the value arrives. A
 * printed pending call makes four (its call, its pipeline, its piece and the
 * piece's place): 8 steps, where it was measured at 0.7 to 1.5 µs.
 */
export const PENDING_COST = 128

/**
 * The pending work an execution holds at once: Promises made from pending
 * values (pieces of output and branches rendered aside among them), and
 * variables copied for them. Past it, a flow of execution holding pending work of its own
 * waits for half of it to arrive before it goes on (exec/exec.ts, exec/output.ts):
 * memory stays flat, and the calls in flight (a service makes a few dozen)
 * still run together.
 */
export const MAX_PENDING = 1024

/**
 * A caller's function copying a value into JSON and serialising it (a tool
 * call's arguments): per member or item copied, and per character of the
 * keys and strings, which the serialisation reads and the call's key is
 * hashed from. A member of a map of thousands of keys was measured at 5 to
 * 15 times a step (such a map is built slowly), a character at a fraction.
 */
export const JSON_MEMBER_COST = 1024
export const JSON_CHAR_COST = 4
