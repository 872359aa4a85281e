import { schemaValidator, validationProblems, withDefaults } from '../catalog'
import type { ValueProblem } from '../catalog'
import type { ParametersSchema } from '../catalog'
import { ServiceError } from '../errors'
import { isObject, setOwn } from '../json'

export type Args = Record<string, unknown>

export interface ArgProblem {
  arg: string
  message: string
}

/**
 * Checks a request's args against a prompt's parameters and completes them:
 * declared defaults fill missing args, and a declared optional parameter with
 * no default is present as its type's empty value (emptyValue), so
 * `{{if .args.x}}` works under missingkey=error and `{{.args.x}}` prints
 * nothing rather than Go's `<no value>`. Args the parameters do not declare
 * pass through.
 */
export function argsChecker(schema: ParametersSchema): (args: Args) => Args {
  const validator = schemaValidator(schema)
  const properties = Object.entries(schema.properties)
  return (given) => {
    const args = withDefaults(schema, given)
    const result = validator.validate(args)
    if (!result.valid) {
      const problems = perArg(validationProblems(result))
      throw new ServiceError(
        'INVALID_ARGS',
        `invalid args: ${problems.map((p) => `${p.arg} ${p.message}`).join('; ')}`,
        {
          extra: { details: problems },
        },
      )
    }
    for (const [name, property] of properties) if (!Object.hasOwn(args, name)) setOwn(args, name, emptyValue(property))
    return args
  }
}

/** The empty value of each JSON Schema type: what Go's zero value of it prints as nothing, or as little. */
const EMPTY_VALUES: Readonly<Record<string, () => unknown>> = {
  string: () => '',
  number: () => 0,
  integer: () => 0,
  boolean: () => false,
  array: () => [],
  object: () => ({}),
}

/**
 * The value an omitted optional parameter without a default takes: its
 * type's empty value (`""`, `0`, `false`, `[]`, `{}`), fresh for each render.
 * Of a union of types, the first that has one (`["integer", "null"]` is 0);
 * `"null"` alone is null (its only value). With no type, or one this does
 * not know, `""`: it prints as nothing, is false to `if`, and is empty to `default`.
 */
export function emptyValue(property: unknown): unknown {
  const type = isObject(property) ? property.type : undefined
  const types = Array.isArray(type) ? type : [type]
  for (const t of types) if (typeof t === 'string' && Object.hasOwn(EMPTY_VALUES, t)) return EMPTY_VALUES[t]?.()
  return types.includes('null') ? null : ''
}

/** One problem per offending arg, the first; a problem of the args as a whole says nothing an arg's would not. */
function perArg(problems: readonly ValueProblem[]): ArgProblem[] {
  const byArg = new Map<string, ArgProblem>()
  for (const { at, message } of problems) {
    const [arg] = at
    if (arg !== undefined && !byArg.has(arg)) byArg.set(arg, { arg, message })
  }
  return [...byArg.values()]
}
