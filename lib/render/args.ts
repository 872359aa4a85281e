import { schemaValidator, validationProblems, withDefaults } from '../catalog'
import type { ValueProblem } from '../catalog'
import type { ParametersSchema } from '../catalog'
import { ServiceError } from '../errors'
import { setOwn } from '../json'

export type Args = Record<string, unknown>

export interface ArgProblem {
  arg: string
  message: string
}

/**
 * Checks a request's args against a prompt's parameters and completes them:
 * declared defaults fill missing args, and a declared optional parameter with
 * no default is present as null, so `{{if .args.x}}` works under
 * missingkey=error. Args the parameters do not declare pass through.
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
    for (const [name] of properties) if (!Object.hasOwn(args, name)) setOwn(args, name, null)
    return args
  }
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
