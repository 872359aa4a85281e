import { jsonPathOf, normalizeParameters, schemaValidator, validationProblems, withDefaults } from '../catalog'
import type { Tool, ToolRecord } from '../catalog'
import { isObject, setOwn } from '../json'
import { Complex128, Uint8, isMap } from '../template/value'
import type { Value } from '../template'

export type Params = Record<string, unknown>

/** A call the tool cannot take: a reason worded for the warning. */
export class ArgumentError extends Error {}

/**
 * A tool's failure. The message goes to the caller's warning and to the log;
 * `excerpt`, a short reason the tool gave for the caller (it can echo the
 * call's arguments), to the warning only.
 */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly excerpt = '',
  ) {
    super(message)
  }
}

/**
 * The calling convention, with its validation: `{{tool "a" 2}}` maps the
 * operands onto the tool's parameters in declaration order; `{{tool (dict
 * "code" .x)}}` passes one map, which is the parameter object itself.
 * Template values become JSON: ints as numbers, bytes as numbers.
 */
export interface ParamsChecker {
  /** The operands as the parameter object, not yet checked: cheap, and what tells one call from another. */
  toParams(args: readonly Value[]): Params
  /** The parameter object with the declared defaults filled in, validated. */
  check(params: Params): Params
}

export function paramsChecker(tool: Tool): ParamsChecker {
  let checker = checkers.get(tool.record)
  if (!checker) {
    checker = newParamsChecker(tool.record)
    checkers.set(tool.record, checker)
  }
  return checker
}

/** Checkers by tool record: a record is one object for as long as its text is unchanged (catalog/records.ts). */
const checkers = new WeakMap<ToolRecord, ParamsChecker>()

function newParamsChecker(record: ToolRecord): ParamsChecker {
  const schema = normalizeParameters(record.parameters)
  const names = Object.keys(schema.properties)
  const validator = schemaValidator(schema)
  return {
    toParams(args) {
      const [first] = args
      if (args.length === 1 && isMap(first)) return toJson(first) as Params
      if (args.length > names.length) {
        throw new ArgumentError(
          `takes at most ${names.length} argument${names.length === 1 ? '' : 's'}, got ${args.length}`,
        )
      }
      const params: Params = {}
      args.forEach((arg, i) => setOwn(params, names[i] as string, toJson(arg)))
      return params
    },
    check(given) {
      const params = withDefaults(schema, given)
      const result = validator.validate(params)
      if (!result.valid) {
        const problems = validationProblems(result).map((p) => `${jsonPathOf(p.at)} ${p.message}`)
        throw new ArgumentError(`invalid arguments: ${problems.join('; ')}`)
      }
      return params
    },
  }
}

/** A template value as JSON. */
export function toJson(v: Value): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()
  if (v instanceof Uint8) return v.value
  if (v instanceof Complex128) return `(${v.re}${v.im < 0 ? '' : '+'}${v.im}i)`
  if (v === undefined) return null
  if (Array.isArray(v)) return v.map(toJson)
  if (isObject(v)) {
    const out: Params = {}
    for (const [k, x] of Object.entries(v)) setOwn(out, k, toJson(x as Value))
    return out
  }
  return v
}
