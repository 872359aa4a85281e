/**
 * The helper functions: Sprig's (github.com/Masterminds/sprig/v3, as Helm
 * and Hugo users know them) that prompts need, and `fence`, ours. They are
 * builtins a template opts into (ParseOptions.helpers), with the Go
 * signatures Sprig gives them: the executor converts their operands as Go
 * converts a typed parameter's, and they count their work and bound the
 * strings they build as the builtins do. README.md ("Helper functions")
 * documents each.
 */
import type { Builtin, Param } from '../exec/run'
import type { Value } from '../value'
import { lower, upper } from './case'
import { toJson } from './json'
import { contains, fence, hasPrefix, hasSuffix, indent, join, quote, replace, trim, trunc } from './strings'

/** A helper of typed parameters, then interface{} ones up to `arity`. */
function typed(params: readonly Param[], call: Builtin['call'], arity = params.length): Builtin {
  // Raw: a missing operand stays missing, so that a typed parameter refuses it as Go words it.
  return { arity, variadic: false, raw: true, params, call }
}

/** A helper whose parameters are all interface{}: a missing operand is nil. */
function untyped(arity: number, variadic: boolean, call: Builtin['call']): Builtin {
  return { arity, variadic, raw: false, call }
}

/** An int parameter's operand: an int, or a whole float64 (see the executor's conversion). */
const int = (v: Value): number => Number(v)

export const HELPERS: Readonly<Record<string, Builtin>> = {
  toJson: untyped(1, false, ([v], w) => toJson(v, w, false)),
  toPrettyJson: untyped(1, false, ([v], w) => toJson(v, w, true)),
  join: typed(['string'], ([sep, list], w) => join(sep as string, list, w), 2),
  // Sprig's default(d interface{}, given ...interface{}): d unless given's first is set.
  default: untyped(1, true, ([d, ...given], w) => (given.length > 0 && w.truth(given[0]) ? given[0] : d)),
  trim: typed(['string'], ([s], w) => trim(s as string, w)),
  upper: typed(['string'], ([s], w) => upper(s as string, w)),
  lower: typed(['string'], ([s], w) => lower(s as string, w)),
  trunc: typed(['int', 'string'], ([n, s], w) => trunc(int(n), s as string, w)),
  indent: typed(['int', 'string'], ([n, s], w) => indent(int(n), s as string, w)),
  nindent: typed(['int', 'string'], ([n, s], w) => indent(int(n), s as string, w, '\n')),
  contains: typed(['string', 'string'], ([part, s], w) => contains(part as string, s as string, w)),
  hasPrefix: typed(['string', 'string'], ([part, s], w) => hasPrefix(part as string, s as string, w)),
  hasSuffix: typed(['string', 'string'], ([part, s], w) => hasSuffix(part as string, s as string, w)),
  replace: typed(['string', 'string', 'string'], ([old, by, s], w) =>
    replace(old as string, by as string, s as string, w),
  ),
  quote: untyped(0, true, (args, w) => quote(args, w)),
  fence: typed(['string', 'string'], ([lang, text], w) => fence(lang as string, text as string, w)),
}

/** The helpers' names, sorted. */
export const HELPER_NAMES: readonly string[] = Object.freeze(Object.keys(HELPERS).sort())
