import { dereference } from '@cfworker/json-schema'
import type { Schema } from '@cfworker/json-schema'
import { checkValue } from './schema-check'
import { wordUnits } from './schema-errors'
import type { SchemaUris, WordedProblem } from './schema-errors'
import * as SCHEMAS from './schemas.generated'

/**
 * Checks a value against one of jsonschema/'s schemas (schemas.generated)
 * and words its failure for a person: one clause per problem, each naming
 * where in the record it is, as a JSON path. Returns undefined when the
 * value is valid.
 */
export function explainInvalid(schema: Schema, value: unknown): string | undefined {
  const problems = problemsOf(schema, value)
  if (!problems) return undefined
  return problems.map(({ path, problem }) => `${path} ${problem}`).join('; ') || 'does not match its schema'
}

export interface SchemaProblem {
  /** Where in the value, as a JSON path (`$.contributes.prompts[0].name`). */
  path: string
  problem: string
}

/** Each thing wrong with `value` under one of jsonschema/'s schemas, once; none when it is valid. */
export function schemaProblems(schema: Schema, value: unknown): SchemaProblem[] {
  return problemsOf(schema, value) ?? []
}

function problemsOf(schema: Schema, value: unknown): SchemaProblem[] | undefined {
  const worded = wordedProblems(schema, value)
  if (!worded) return undefined
  const problems = new Map<string, SchemaProblem>()
  for (const { at, problem } of worded) {
    const found = { path: jsonPathOf(at), problem }
    problems.set(`${found.path} ${found.problem}`, found)
  }
  return [...problems.values()]
}

let uris: SchemaUris | undefined

/**
 * jsonschema/'s schemas by URI, for their `$ref`s to each other: listed
 * once per isolate, when it checks its first record.
 */
function schemaUris(): SchemaUris {
  uris ??= Object.values(SCHEMAS).reduce<SchemaUris>((found, schema) => dereference(schema, found), {})
  return uris
}

function wordedProblems(schema: Schema, value: unknown): WordedProblem[] | undefined {
  const checked = checkValue(value, schema, '7', schemaUris())
  return checked.result.valid ? undefined : wordUnits(checked.result.errors, schema, schemaUris(), checked.value)
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
