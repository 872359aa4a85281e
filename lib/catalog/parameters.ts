import type { SchemaDraft } from '@cfworker/json-schema'
import { ServiceError } from '../errors'
import { checkValue } from './schema-check'
import type { ValidationResult } from './schema-check'
import { EVERY_PROBLEM_WORK, MAX_VALIDATION_WORK, describeHazard, safeSchema, workOf } from './schema-safety'
import { isObject, setOwn } from '../json'
import type { JsonObject } from '../json'
import type { JsonSchema, ParameterEntry, ParametersInput, ParametersSchema } from './types'

export interface SchemaValidator {
  validate(value: unknown): ValidationResult
}

/**
 * A validator of values against a JSON Schema (a tool's or prompt's
 * normalised parameters, a prompt's `returns`), interpreting the schema
 * (workerd forbids generating code). The schema is checked first
 * (schema-safety.ts): one whose validation could be super-linear is 400
 * BAD_REQUEST (records holding one are skipped as invalid before they get
 * here), and a value whose check would take more than MAX_VALIDATION_WORK
 * is 422 LIMIT_EXCEEDED, before any of it is checked. Resolving its
 * `$ref`s annotates the schema, so it gets a copy of its own: records are
 * shared between requests, frozen. How a value is checked: schema-check.ts.
 */
export function schemaValidator(schema: JsonSchema, draft: SchemaDraft = '7'): SchemaValidator {
  const safe = safeSchema(schema)
  if ('keyword' in safe) throw new ServiceError('BAD_REQUEST', `the schema is refused: ${describeHazard(safe)}`)
  return {
    validate: (value) => {
      const work = workOf(safe.cost, value)
      if (work > MAX_VALIDATION_WORK) {
        throw new ServiceError(
          'LIMIT_EXCEEDED',
          `checking this value against its schema would take ${work} units of work, more than ${MAX_VALIDATION_WORK}: send a smaller value, or simplify the schema`,
        )
      }
      // Every problem made is an error object: where a value is big, one problem is what the caller gets.
      return checkValue(value, safe.schema, draft, safe.uris, work <= EVERY_PROBLEM_WORK)
    },
  }
}

/**
 * Keywords whose failure only says that a schema inside failed, which
 * reports its own (`if`: its `then` or `else`, and the guard around
 * `uniqueItems`, schema-safety.ts).
 */
const WRAPPERS = new Set(['properties', 'additionalProperties', 'items', 'allOf', 'anyOf', 'oneOf', '$ref', 'if'])

/** One thing wrong with a value: where (the member names down to it), and what, worded after its path. */
export interface ValueProblem {
  at: string[]
  message: string
}

/**
 * Problems worded at most: a value can hold hundreds of thousands of bad
 * items (a body of MAX_BODY_BYTES), and wording each costs far more than
 * finding it; past the first ones, the rest are more of the same.
 */
const MAX_WORDED = 256

/**
 * A failed validation's problems, once each, worded for a person (and for a
 * model asked to fix its answer): a missing member is `at` that member, `is
 * required`; a wrong type `must be number, not string`. The first
 * MAX_WORDED only.
 */
export function validationProblems(result: ValidationResult): ValueProblem[] {
  const problems = new Map<string, ValueProblem>()
  for (const e of result.errors.slice(0, MAX_WORDED)) {
    if (WRAPPERS.has(e.keyword)) continue
    const at = e.instanceLocation
      .split('/')
      .slice(1)
      .map((s) => decodeURIComponent(s).replaceAll('~1', '/').replaceAll('~0', '~'))
    const missing = /required property "(.*)"/.exec(e.error)
    const type = /^Instance type "(.*)" is invalid\. Expected "(.*)"\.$/.exec(e.error)
    let message = type ? `must be ${type[2]}, not ${type[1]}` : e.error.replace(/^Instance /, '').replace(/\.$/, '')
    // A false schema (`additionalProperties: false`) forbids the member.
    if (e.keyword === 'false') message = 'is not allowed'
    const missingAt = e.keyword === 'required' && missing ? [...at, missing[1] as string] : undefined
    const problem = missingAt ? { at: missingAt, message: 'is required' } : { at, message }
    problems.set(JSON.stringify(problem), problem)
  }
  return [...problems.values()]
}

/** `given`, and a copy of each declared `default` for a parameter it lacks. */
export function withDefaults(schema: ParametersSchema, given: JsonObject): JsonObject {
  const filled: JsonObject = { ...given }
  for (const [name, property] of Object.entries(schema.properties)) {
    if (!Object.hasOwn(filled, name) && isObject(property) && Object.hasOwn(property, 'default')) {
      setOwn(filled, name, structuredClone(property.default))
    }
  }
  return filled
}

/**
 * Normalises `parameters` to one JSON Schema of type object, whichever of
 * the three shapes it was written in (jsonschema/parameters.json):
 *
 *   [{name, type, default, description, required?}]      the spec's list
 *   {"type": "object", "properties": {...}, ...}          a JSON Schema
 *   {"repo": {"type": "string"}, ...}                      a map of schemas
 *
 * A member `type` (as a string), `$schema` or `properties` marks a JSON
 * Schema; anything else is a map. Parameters are optional unless the input
 * says otherwise, including the draft-3 style `"required": true` inside a
 * property, which many hand-written records use.
 */
export function normalizeParameters(input: ParametersInput | undefined): ParametersSchema {
  if (input === undefined) return objectSchema({}, [])
  if (Array.isArray(input)) return fromList(input)
  if (isJsonSchema(input)) return fromJsonSchema(input)
  return fromMap(input)
}

function isJsonSchema(input: JsonSchema): boolean {
  return typeof input.type === 'string' || '$schema' in input || 'properties' in input
}

function fromList(entries: ParameterEntry[]): ParametersSchema {
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const { name, type, required: isRequired, ...rest } of entries) {
    const schema: JsonSchema = { ...rest }
    const alias = type?.toLowerCase()
    if (alias !== undefined && Object.hasOwn(TYPE_ALIASES, alias)) schema.type = TYPE_ALIASES[alias]
    setOwn(properties, name, schema)
    if (isRequired) required.push(name)
  }
  return objectSchema(properties, required)
}

function fromJsonSchema(input: JsonSchema): ParametersSchema {
  const { $schema: _draft, properties, required, ...rest } = input
  const hoisted = hoistRequired(isObject(properties) ? properties : {})
  const listed = Array.isArray(required) ? required.map(String) : []
  return { ...rest, ...objectSchema(hoisted.properties, [...listed, ...hoisted.required]) }
}

function fromMap(input: JsonSchema): ParametersSchema {
  const hoisted = hoistRequired(input)
  return objectSchema(hoisted.properties, hoisted.required)
}

/** Moves draft-3 `"required": true` out of property schemas into the object's list. */
function hoistRequired(properties: Record<string, unknown>) {
  const out: Record<string, JsonSchema | boolean> = {}
  const required: string[] = []
  for (const [name, schema] of Object.entries(properties)) {
    if (isObject(schema) && typeof schema.required === 'boolean') {
      const { required: isRequired, ...rest } = schema
      if (isRequired) required.push(name)
      setOwn(out, name, rest)
    } else {
      setOwn(out, name, isObject(schema) || typeof schema === 'boolean' ? schema : {})
    }
  }
  return { properties: out, required }
}

function objectSchema(properties: Record<string, JsonSchema | boolean>, required: string[]): ParametersSchema {
  return { type: 'object', properties, required: [...new Set(required)] }
}

/**
 * The list shape's `type` is free text in real data. JSON Schema's own names
 * and the usual programming-language spellings map to JSON Schema types; an
 * unknown name constrains nothing rather than rejecting every argument.
 */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  string: 'string',
  str: 'string',
  text: 'string',
  number: 'number',
  float: 'number',
  double: 'number',
  integer: 'integer',
  int: 'integer',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  object: 'object',
  dict: 'object',
  map: 'object',
  null: 'null',
}

/** Keywords whose value is data, not schemas: nothing inside them is a keyword. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'title', 'description', '$comment'])
/** Keywords whose value maps names, which are not keywords, to schemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'])

/**
 * Where a JSON Schema holds a regular expression (`pattern`,
 * `patternProperties`), as a path below `path`; undefined when it holds
 * none. A regular expression can take exponential time on a short string and
 * nothing interrupts it: one a request gives would stall every request of
 * the isolate. Records are published by admins; a draft's schema is not.
 */
export function regexIn(schema: unknown, path: string): string | undefined {
  if (Array.isArray(schema)) {
    for (const [i, item] of schema.entries()) {
      const found = regexIn(item, `${path}[${i}]`)
      if (found) return found
    }
    return undefined
  }
  if (!isObject(schema)) return undefined
  for (const [key, value] of Object.entries(schema)) {
    const at = `${path}.${key}`
    if ((key === 'pattern' && typeof value === 'string') || key === 'patternProperties') return at
    if (DATA_KEYWORDS.has(key)) continue
    const found = SCHEMA_MAPS.has(key) && isObject(value) ? mapped(value, at) : regexIn(value, at)
    if (found) return found
  }
  return undefined
}

function mapped(schemas: JsonObject, path: string): string | undefined {
  for (const [name, schema] of Object.entries(schemas)) {
    const found = regexIn(schema, `${path}.${name}`)
    if (found) return found
  }
  return undefined
}
