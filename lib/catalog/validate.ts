import type { ErrorObject, ValidateFunction } from 'ajv'
import { ONE_OF_REQUIRED } from './validators.generated'

/**
 * Runs a generated validator and words its failure for a person: one clause
 * per problem, each naming where in the record it is, as a JSON path.
 * Returns undefined when the value is valid.
 */
export function explainInvalid(validate: ValidateFunction, value: unknown): string | undefined {
  if (validate(value)) return undefined
  return wordErrors(validate.errors ?? [])
}

export function wordErrors(errors: readonly ErrorObject[]): string {
  return (
    problemsOf(errors)
      .map(({ path, problem }) => `${path} ${problem}`)
      .join('; ') || 'does not match its schema'
  )
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

function problemsOf(errors: readonly ErrorObject[]): SchemaProblem[] {
  const problems = new Map<string, SchemaProblem>()
  for (const error of relevant(errors)) {
    const problem = { path: jsonPath(error.instancePath), problem: describe(error, errors) }
    problems.set(`${problem.path} ${problem.problem}`, problem)
  }
  return [...problems.values()]
}

/**
 * Drops the errors that only restate others: the branches of a failed
 * oneOf/anyOf (the oneOf/anyOf error says it better), and if/then wrappers
 * (the `then` branch's own error is kept).
 */
function relevant(errors: readonly ErrorObject[]): ErrorObject[] {
  const combinators = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')
  return errors.filter((e) => {
    if (e.keyword === 'if') return false
    return !combinators.some(
      (c) => c !== e && c.instancePath === e.instancePath && e.schemaPath.startsWith(`${c.schemaPath}/`),
    )
  })
}

function describe(error: ErrorObject, errors: readonly ErrorObject[]): string {
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'oneOf':
    case 'anyOf': {
      const names = requiredAlternatives(error, errors)
      if (names) return `must have ${error.keyword === 'oneOf' ? 'exactly' : 'at least'} one of ${names}`
      return `must match ${error.keyword === 'oneOf' ? 'exactly one' : 'at least one'} of the allowed shapes`
    }
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`
    default:
      return error.message ?? 'is invalid'
  }
}

/**
 * For `oneOf: [{required: [a]}, {required: [b]}]` (or anyOf), the words
 * "'a' or 'b'": from the branches' own errors, each a missing property, or,
 * when branches matched rather than failed, from the schemas (ONE_OF_REQUIRED).
 */
function requiredAlternatives(error: ErrorObject, errors: readonly ErrorObject[]): string | undefined {
  const branches = errors.filter(
    (e) => e !== error && e.instancePath === error.instancePath && e.schemaPath.startsWith(`${error.schemaPath}/`),
  )
  const missing = branches.map((b) =>
    b.keyword === 'required' && b.schemaPath === `${error.schemaPath}/${b.schemaPath.split('/').at(-2)}/required`
      ? String((b.params as { missingProperty: unknown }).missingProperty)
      : undefined,
  )
  const names =
    branches.length > 0 ? missing : error.keyword === 'oneOf' ? ONE_OF_REQUIRED[error.schemaPath] : undefined
  if (!names || names.length === 0 || names.some((n) => n === undefined)) return undefined
  return names.map((n) => `'${n}'`).join(' or ')
}

/** `/contributes/prompts/0/name` is `$.contributes.prompts[0].name`. */
export function jsonPath(pointer: string): string {
  return jsonPathOf(
    pointer
      .split('/')
      .slice(1)
      .map((raw) => raw.replaceAll('~1', '/').replaceAll('~0', '~')),
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
