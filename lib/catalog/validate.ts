import { dereference, validate } from '@cfworker/json-schema'
import type { Schema } from '@cfworker/json-schema'
import { isObject } from '../json'
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

/**
 * The validator reports every problem, but gathers them by spreading arrays
 * into arrays, which a value of some hundred thousand bad items overflows:
 * then it stops at the first problem instead.
 */
function wordedProblems(schema: Schema, value: unknown): WordedProblem[] | undefined {
  try {
    return wordedOnce(schema, value)
  } catch (e) {
    if (!notJsonEnough(e)) throw e
    return wordedOnce(schema, asJson(value))
  }
}

function wordedOnce(schema: Schema, value: unknown): WordedProblem[] | undefined {
  let result: ReturnType<typeof validate>
  try {
    result = validate(value, schema, '7', schemaUris(), false)
  } catch (e) {
    if (!(e instanceof RangeError)) throw e
    result = validate(value, schema, '7', schemaUris(), true)
  }
  return result.valid ? undefined : wordUnits(result.errors, schema, schemaUris(), value)
}

/**
 * What the validator throws on a value JSON would carry otherwise: a member
 * name with a lone surrogate, which it cannot write into a URI, and a member
 * set to undefined (an object built in code), which it will not check.
 */
function notJsonEnough(e: unknown): boolean {
  return e instanceof URIError || (e instanceof Error && e.message.startsWith('Instances of "undefined" type'))
}

/** `value` as the old validators read it: members set to undefined left out, lone surrogates in names as U+FFFD. */
function asJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asJson)
  if (!isObject(value)) return value
  return Object.fromEntries(
    Object.entries(value).flatMap(([name, member]) =>
      member === undefined ? [] : [[name.replace(/\p{Cs}/gu, '\ufffd'), asJson(member)]],
    ),
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
