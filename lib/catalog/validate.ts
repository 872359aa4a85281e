import type { ErrorObject, ValidateFunction } from 'ajv'

// Records are checked by the validators Ajv generated from jsonschema/ at
// build time (validators.generated.js, scripts/generate.mjs): plain
// functions, since workerd forbids generating code at run time. Schemas that
// arrive at run time (parameters, returns, drafts' own) are interpreted by
// @cfworker/json-schema instead (parameters.ts).

/** At most this many problems are listed for one value; the rest are counted. */
export const MAX_SCHEMA_PROBLEMS = 20

/**
 * Checks a value with a generated validator and words its failure for a
 * person: one clause per problem, each naming where in the record it is, as
 * a JSON path. Returns undefined when the value is valid.
 */
export function explainInvalid(validate: ValidateFunction, value: unknown): string | undefined {
  if (validate(value)) return undefined
  return problemsOf(validate.errors ?? [])
    .map(({ path, problem }) => `${path} ${problem}`)
    .join('; ')
}

export interface SchemaProblem {
  /** Where in the value, as a JSON path (`$.contributes.prompts[0].name`). */
  path: string
  problem: string
}

/** Each thing wrong with `value` under a generated validator, once; none when it is valid. */
export function schemaProblems(validate: ValidateFunction, value: unknown): SchemaProblem[] {
  return validate(value) ? [] : problemsOf(validate.errors ?? [])
}

/**
 * Ajv's errors as problems: its message at the JSON path of its
 * instancePath, each once. An `if` error (`must match "then" schema`) only
 * restates the errors of its branch, which come before it. Past
 * MAX_SCHEMA_PROBLEMS, the other errors are only counted: a record of a
 * hundred thousand bad items has as many errors, and wording each costs
 * more than finding it.
 */
function problemsOf(errors: readonly ErrorObject[]): SchemaProblem[] {
  const problems = new Map<string, SchemaProblem>()
  let more = 0
  for (const error of errors) {
    if (error.keyword === 'if') continue
    if (problems.size === MAX_SCHEMA_PROBLEMS) {
      more++
      continue
    }
    const problem = { path: jsonPath(error.instancePath), problem: message(error) }
    problems.set(`${problem.path} ${problem.problem}`, problem)
  }
  const listed = [...problems.values()]
  if (listed.length === 0) return [{ path: '$', problem: 'does not match its schema' }]
  return more === 0
    ? listed
    : [...listed, { path: '$', problem: `has ${more} more error${more === 1 ? '' : 's'} not listed` }]
}

/**
 * Ajv's message; for `enum` and `const`, whose messages only say that
 * there are allowed values, followed by those values (its params).
 */
function message(error: ErrorObject): string {
  const said = error.message ?? `fails ${error.keyword}`
  const params = error.params as { allowedValues?: unknown; allowedValue?: unknown }
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues))
    return `${said}: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
  if (error.keyword === 'const') return `${said} ${JSON.stringify(params.allowedValue)}`
  return said
}

/** `/contributes/prompts/0/name` (a JSON Pointer) is `$.contributes.prompts[0].name`. */
function jsonPath(pointer: string): string {
  return jsonPathOf(
    pointer
      .split('/')
      .slice(1)
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~')),
  )
}

/** `['contributes', 'prompts', '0', 'name']` is `$.contributes.prompts[0].name`. */
export function jsonPathOf(at: readonly string[]): string {
  return (
    '$' +
    at
      .map((part) => {
        if (/^\d+$/.test(part)) return `[${part}]`
        return /^[A-Za-z_$][\w$]*$/.test(part) ? `.${part}` : `[${JSON.stringify(part)}]`
      })
      .join('')
  )
}
