/**
 * Whether a JSON Schema `pattern` can be matched in time linear in the
 * string. The validator runs V8's backtracking engine (`new RegExp(p,
 * 'u').test(s)`), which nothing interrupts: `^(a+)+$` takes seconds on 30
 * letters, and even `\d+x`, unanchored, is quadratic (tried at each of the
 * string's positions: 56 s on 100,000 digits). The rule is a conservative
 * grammar, not an analysis of ambiguity:
 *
 * - a sequence of atoms (a character, an escape such as `\d` or `\p{L}`, a
 *   class `[...]`, `.`), each quantified or not (`?`, `*`, `+`, `{n}`,
 *   `{n,}`, `{n,m}`, lazy or not), and groups `(...)`/`(?:...)` holding an
 *   alternation of unquantified atoms (`^(?:get|put)$`), the group itself
 *   unquantified;
 * - no back-references, lookarounds or named groups;
 * - at most one unbounded quantifier (`*`, `+`, `{n,}`), and only when the
 *   pattern opens with `^` (tried at one position, it backtracks over that
 *   one quantifier: linear);
 * - the bounded quantifiers' choices multiplied (`{3,16}` is 14, `?` 2) at
 *   most MAX_CHOICES: what one position can backtrack through.
 *
 * Returns why a pattern is refused, or undefined when it is accepted.
 */
export function regexHazard(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u')
  } catch {
    return 'is not a valid regular expression'
  }
  const parsed = scan(pattern)
  if (typeof parsed === 'string') return parsed
  if (parsed.unbounded > 1) return `has ${parsed.unbounded} unbounded quantifiers (*, +, {n,}): at most one is linear`
  if (parsed.unbounded === 1 && !pattern.startsWith('^'))
    return 'has an unbounded quantifier (*, +, {n,}) but does not open with ^: tried at every position, it is quadratic'
  if (parsed.choices > MAX_CHOICES)
    return `has bounded quantifiers of ${parsed.choices} combined choices, more than ${MAX_CHOICES}`
  return undefined
}

/**
 * What matching an accepted pattern costs per character of the string, in
 * steps, at most: tried at each position unless it opens with `^`, each try
 * backtracking through its bounded quantifiers' choices over the pattern
 * (`a{0,999}b`, unanchored, takes about 1,000 steps a character).
 */
export function regexWork(pattern: string): number {
  if (pattern.startsWith('^')) return 1
  const parsed = scan(pattern)
  return typeof parsed === 'string' ? MAX_CHOICES * pattern.length : parsed.choices * pattern.length
}

/** The most combinations of bounded quantifiers one position may backtrack through. */
const MAX_CHOICES = 1000

interface Scanned {
  unbounded: number
  choices: number
}

const REFUSED = 'uses a construct whose matching can backtrack super-linearly'

/** Walks the pattern's grammar (above); a reason when it leaves it. */
function scan(pattern: string): Scanned | string {
  const found: Scanned = { unbounded: 0, choices: 1 }
  let i = 0
  let depth = 0
  let quantifiable = false
  while (i < pattern.length) {
    const c = pattern[i] as string
    if (c === '\\') {
      const escape = escapeLength(pattern, i)
      if (typeof escape === 'string') return escape
      i += escape
      quantifiable = true
      continue
    }
    if (c === '[') {
      const end = classEnd(pattern, i)
      if (end < 0) return REFUSED
      i = end + 1
      quantifiable = true
      continue
    }
    if (c === '(') {
      if (depth > 0) return `nests groups, which ${REFUSED.slice(5)}`
      if (pattern[i + 1] === '?') {
        if (pattern[i + 2] !== ':') return 'uses a lookaround or named group, which backtrack super-linearly'
        i += 3
      } else i += 1
      depth = 1
      quantifiable = false
      continue
    }
    if (c === ')') {
      depth = 0
      i += 1
      if (isQuantifier(pattern, i)) return 'quantifies a group, whose matching can backtrack exponentially'
      quantifiable = false
      continue
    }
    if (c === '|') {
      if (depth === 0) return 'has an alternation outside a group: write it as ^(?:a|b)$'
      i += 1
      quantifiable = false
      continue
    }
    if (isQuantifier(pattern, i)) {
      if (!quantifiable) return REFUSED
      if (depth > 0) return 'quantifies inside a group, which can backtrack exponentially'
      const q = quantifier(pattern, i)
      if (q.max === undefined) found.unbounded += 1
      else found.choices *= q.max - q.min + 1
      i = q.end
      quantifiable = false
      continue
    }
    i += c.length
    quantifiable = c !== '^' && c !== '$'
  }
  return found
}

function isQuantifier(pattern: string, i: number): boolean {
  const c = pattern[i]
  return c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i, i + 24)))
}

/** A quantifier at `i`: its bounds (max undefined: unbounded) and where it ends, a lazy `?` included. */
function quantifier(pattern: string, i: number): { min: number; max: number | undefined; end: number } {
  const c = pattern[i]
  let q: { min: number; max: number | undefined; end: number }
  if (c === '*') q = { min: 0, max: undefined, end: i + 1 }
  else if (c === '+') q = { min: 1, max: undefined, end: i + 1 }
  else if (c === '?') q = { min: 0, max: 1, end: i + 1 }
  else {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24)) as RegExpExecArray
    const min = Number(m[1])
    const max = m[2] === undefined ? min : m[3] === '' ? undefined : Number(m[3])
    q = { min, max, end: i + m[0].length }
  }
  if (pattern[q.end] === '?') q.end += 1
  return q
}

/** The length of the escape at `i`; back-references are refused. */
function escapeLength(pattern: string, i: number): number | string {
  const next = pattern[i + 1] ?? ''
  if (/[1-9]/.test(next) || next === 'k') return 'uses a back-reference, whose matching can backtrack exponentially'
  if (next === 'p' || next === 'P') {
    const close = pattern.indexOf('}', i)
    return close < 0 ? REFUSED : close - i + 1
  }
  if (next === 'u' && pattern[i + 2] === '{') {
    const close = pattern.indexOf('}', i)
    return close < 0 ? REFUSED : close - i + 1
  }
  if (next === 'u') return 6
  if (next === 'x') return 4
  if (next === 'c') return 3
  return 1 + next.length
}

/** Where the class opening at `i` closes (escapes inside skipped); -1 when it does not. */
function classEnd(pattern: string, i: number): number {
  let j = i + 1
  if (pattern[j] === '^') j += 1
  if (pattern[j] === ']') j += 1
  while (j < pattern.length) {
    if (pattern[j] === '\\') j += 2
    else if (pattern[j] === ']') return j
    else j += 1
  }
  return -1
}
