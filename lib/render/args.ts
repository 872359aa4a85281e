import type { OutputUnit } from '@cfworker/json-schema'
import { parametersValidator, withDefaults } from '../catalog'
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
  const validator = parametersValidator(schema)
  const properties = Object.entries(schema.properties)
  return (given) => {
    const args = withDefaults(schema, given)
    const result = validator.validate(args)
    if (!result.valid) {
      const problems = describe(result.errors)
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

/** One problem per offending arg, worded after its name; the validator's wrapper errors are dropped. */
function describe(errors: readonly OutputUnit[]): ArgProblem[] {
  const problems: ArgProblem[] = []
  for (const e of errors) {
    let problem: ArgProblem | undefined
    const missing = /required property "(.*)"/.exec(e.error)
    if (e.keyword === 'required' && missing) problem = { arg: missing[1] as string, message: 'is required' }
    else if (e.instanceLocation !== '#' && !['properties', 'allOf', 'anyOf', 'oneOf', '$ref'].includes(e.keyword)) {
      const arg = decodeURIComponent(e.instanceLocation.split('/')[1] ?? '')
        .replaceAll('~1', '/')
        .replaceAll('~0', '~')
      const type = /^Instance type "(.*)" is invalid\. Expected "(.*)"\.$/.exec(e.error)
      const message = type ? `must be ${type[2]}, not ${type[1]}` : e.error.replace(/^Instance /, '').replace(/\.$/, '')
      problem = { arg, message }
    }
    if (problem && !problems.some((p) => p.arg === problem.arg)) problems.push(problem)
  }
  return problems
}
