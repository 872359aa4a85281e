import { jsonPathOf, normalizeParameters, schemaValidator, validationProblems, withDefaults } from '../catalog'
import type { Tool, ToolRecord } from '../catalog'
import { isObject, setOwn } from '../json'
import { Complex128, JSON_CHAR_COST, JSON_MEMBER_COST, Uint8, isMap } from '../template'
import type { Meter, Value, ValueMap } from '../template'

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

/** A `{name}` placeholder of a REST tool's URL, which takes the parameter of that name. */
export const PLACEHOLDER = /\{([^{}]+)\}/g

/** A call's parameter object, not yet checked, and the text that tells it from the tool's other calls. */
export interface Given {
  params: Params
  key: string
}

function givenOf(params: Params): Given {
  return { params, key: JSON.stringify(params) }
}

/** The map operands remembered with their calls. */
const SEEN_MAPS = 4

/**
 * The calls the last few map operands made, by the map: a template calls
 * again with the same map (in a range, say). Only the last few: a map a
 * `dict` makes for one call is never seen again, and each remembered
 * holds a copy of its map.
 */
export class SeenMaps {
  readonly #seen: { map: ValueMap; kept: ReadonlySet<string> | undefined; given: Given }[] = []

  /** The call `map` made, kept to the parameters in `kept` (undefined: all of them). */
  get(map: ValueMap, kept: ReadonlySet<string> | undefined): Given | undefined {
    return this.#seen.find((s) => s.map === map && s.kept === kept)?.given
  }

  set(map: ValueMap, kept: ReadonlySet<string> | undefined, given: Given): void {
    if (this.#seen.length >= SEEN_MAPS) this.#seen.shift()
    this.#seen.push({ map, kept, given })
  }
}

/**
 * The calling convention, with its validation: `{{tool "a" 2}}` maps the
 * operands onto the tool's parameters in declaration order; `{{tool (dict
 * "code" .x)}}` passes one map, which is the parameter object itself.
 * Template values become JSON: ints as numbers, bytes as numbers.
 */
export interface ParamsChecker {
  /**
   * The operands as a call. Copying them costs in proportion to their size,
   * counted in `meter` before the copy is serialised; a map operand met
   * again (`seen`, by identity: template values do not change) is not
   * copied again, so that calling again with the same map costs nothing more.
   */
  given(args: readonly Value[], meter: Meter, seen: SeenMaps): Given
  /** A call's named parameters (a model's, MCP's) as a call, the ones it would never send dropped first. */
  named(params: Params): Given
  /** The parameter object with the declared defaults filled in, validated. */
  check(params: Params): Params
  /**
   * The parameters the tool names, the only ones a REST request sends;
   * undefined when its schema takes others too (`additionalProperties`
   * true or a schema, or names them in ways not listed: patterns, `allOf`...).
   */
  readonly declared: ReadonlySet<string> | undefined
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

/** Keywords by which a schema takes parameters its `properties` do not name. */
const OPEN_KEYWORDS = ['patternProperties', 'allOf', 'anyOf', 'oneOf', '$ref', 'if', 'dependentSchemas']

function newParamsChecker(record: ToolRecord): ParamsChecker {
  const schema = normalizeParameters(record.parameters)
  const names = Object.keys(schema.properties)
  const validator = schemaValidator(schema)
  const open =
    (schema.additionalProperties !== undefined && schema.additionalProperties !== false) ||
    OPEN_KEYWORDS.some((k) => Object.hasOwn(schema, k))
  const declared = open ? undefined : new Set(names)
  // A REST tool sends only its declared parameters and its URL's placeholders; when its schema says nothing of
  // others, they are valid and never sent, so they are dropped before anything copies, keys, fills or checks
  // them: a call with 40,000 of them costs what one with none does. (`additionalProperties: false` refuses them.)
  const kept =
    record.type === 'restful' && declared && schema.additionalProperties === undefined
      ? new Set([...declared, ...Array.from(record.restful.url.matchAll(PLACEHOLDER), (m) => m[1] as string)])
      : undefined
  const narrowed = <T extends object>(params: T): T => (kept ? pick(params, kept) : params)
  return {
    declared,
    given(args, meter, seen) {
      const [first] = args
      if (args.length === 1 && isMap(first)) {
        let known = seen.get(first, kept)
        if (!known) {
          known = givenOf(toJson(narrowed(first), meter) as Params)
          seen.set(first, kept, known)
        }
        return known
      }
      if (args.length > names.length) {
        throw new ArgumentError(
          `takes at most ${names.length} argument${names.length === 1 ? '' : 's'}, got ${args.length}`,
        )
      }
      const params: Params = {}
      args.forEach((arg, i) => setOwn(params, names[i] as string, toJson(arg, meter)))
      return givenOf(params)
    },
    named(params) {
      return givenOf(narrowed(params))
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

/** The members of `object` named in `names`, in their order: no other member's value is read. */
function pick<T extends object>(object: T, names: ReadonlySet<string>): T {
  const out = {}
  for (const name of Object.keys(object)) if (names.has(name)) setOwn(out, name, (object as Params)[name])
  return out as T
}

/** Work counted at once, in characters: enough that counting costs little beside the copy. */
const TALLIED = 4096

/**
 * A template value as JSON, the work of copying it and of serialising the
 * copy counted in `meter` as the copy goes: the budget ends a copy too big
 * for it partway, and before anything serialises it.
 */
export function toJson(v: Value, meter: Meter): unknown {
  let tally = 0
  const count = (chars: number) => {
    tally += chars
    if (tally >= TALLIED) {
      meter.charge(tally)
      tally = 0
    }
  }
  const copy = (v: Value): unknown => {
    if (typeof v === 'string') {
      count(JSON_CHAR_COST * v.length)
      return v
    }
    if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()
    if (v instanceof Uint8) return v.value
    if (v instanceof Complex128) return `(${v.re}${v.im < 0 ? '' : '+'}${v.im}i)`
    if (v === undefined) return null
    if (Array.isArray(v)) {
      count(JSON_MEMBER_COST * v.length)
      return v.map(copy)
    }
    if (isObject(v)) {
      const entries = Object.entries(v)
      count(JSON_MEMBER_COST * entries.length)
      const out: Params = {}
      for (const [k, x] of entries) {
        count(JSON_CHAR_COST * k.length)
        setOwn(out, k, copy(x as Value))
      }
      return out
    }
    return v
  }
  const json = copy(v)
  meter.charge(tally)
  return json
}
