import { isObject } from '../json'
import { normalizeParameters } from './parameters'
import { describeHazard, safeSchema } from './schema-safety'
import { testsProblems } from './tests'
import type { JsonSchema, ParametersInput, PromptRecord } from './types'
import type { SchemaProblem } from './validate'

/** Members that make an object a JSON Schema rather than the spec's free-form description of an answer. */
const SCHEMA_MARKS = ['type', 'properties', '$schema', '$ref', 'enum', 'const', 'items', 'anyOf', 'oneOf', 'allOf']

/**
 * The prompt's `returns` when it is a JSON Schema: an object with one of
 * SCHEMA_MARKS, and not the tags format (`{"format": "tags"}`). Anything
 * else there (the spec's list of return definitions, `{}`) documents the
 * answer and asks nothing of the model.
 */
export function returnsSchema(record: PromptRecord): JsonSchema | undefined {
  const { returns } = record
  if (!isObject(returns) || returns.format === 'tags') return undefined
  return SCHEMA_MARKS.some((mark) => Object.hasOwn(returns, mark)) ? returns : undefined
}

/**
 * What is unsafe in the JSON Schemas a record valid against its own schema
 * holds (schema-safety.ts): a prompt's or tool's `parameters` (as
 * normalised, so pointers are into that form) and a prompt's `returns`;
 * a prompt's `tests` (tests.ts: their regexes, names, and at most
 * `maxCases` of them when given).
 * Each record of `kind` at `path` in its file; an extension's prompts each.
 */
export function recordSchemaProblems(kind: string, value: unknown, maxCases?: number): SchemaProblem[] {
  if (!isObject(value)) return []
  if (kind === 'tools') return parametersProblems(value.parameters as ParametersInput | undefined, '$')
  if (kind === 'templates') return promptProblems(value as PromptRecord, '$', maxCases)
  if (kind !== 'extensions' || !isObject(value.contributes)) return []
  const prompts = value.contributes.prompts
  return (Array.isArray(prompts) ? prompts : []).flatMap((prompt: PromptRecord, i) =>
    promptProblems(prompt, `$.contributes.prompts[${i}]`, maxCases),
  )
}

/** recordSchemaProblems worded as one reason, to follow "the record": undefined when there are none. */
export function unsafeSchemas(kind: string, value: unknown): string | undefined {
  const problems = recordSchemaProblems(kind, value)
  return problems.length === 0 ? undefined : problems.map((p) => `${p.path} ${p.problem}`).join('; ')
}

function promptProblems(record: PromptRecord, path: string, maxCases: number | undefined): SchemaProblem[] {
  const problems = [
    ...parametersProblems(record.parameters, path),
    ...testsProblems(record.tests, `${path}.tests`, maxCases),
  ]
  const returns = returnsSchema(record)
  const hazard = returns && safeSchema(returns)
  if (hazard && 'keyword' in hazard)
    problems.push({ path: `${path}.returns`, problem: refused(describeHazard(hazard)) })
  return problems
}

function parametersProblems(parameters: ParametersInput | undefined, path: string): SchemaProblem[] {
  if (parameters === undefined) return []
  const hazard = safeSchema(normalizeParameters(parameters))
  return 'keyword' in hazard ? [{ path: `${path}.parameters`, problem: refused(describeHazard(hazard)) }] : []
}

function refused(hazard: string): string {
  return `is a JSON Schema refused, as its validation could freeze the service: ${hazard}`
}
