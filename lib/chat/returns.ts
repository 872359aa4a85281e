import type { SchemaDraft } from '@cfworker/json-schema'
import { jsonPathOf, schemaValidator, validationProblems } from '../catalog'
import type { JsonSchema, SchemaValidator } from '../catalog'
import { ServiceError, clip } from '../errors'
import { isObject } from '../json'

// The catalogue checks a stored `returns` schema before it is served, so it tells what one is.
export { returnsSchema } from '../catalog'

/**
 * The `response_format` asking the model for JSON of `schema`: strict (the
 * provider constrains decoding to it) where the schema keeps to what strict
 * mode takes, a guide otherwise. The name is the prompt's id, as the
 * provider allows names.
 */
export function responseFormat(schema: JsonSchema, promptId: string): Record<string, unknown> {
  const { $schema: _draft, $id: _id, ...body } = schema
  const name = promptId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)
  return { type: 'json_schema', json_schema: { name, schema: body, strict: strictAllowed(schema, true) } }
}

/** The keywords OpenAI's strict mode takes in every schema of the tree; `additionalProperties` only as false. */
const STRICT_KEYWORDS = new Set([
  '$schema',
  '$id',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
])

/**
 * True when strict mode takes `schema`: only STRICT_KEYWORDS, a root of type
 * object, every object closed (`additionalProperties: false`) with all its
 * properties required. Anything else would make the provider refuse the
 * request, so the schema is sent as a guide and the answer still checked.
 */
function strictAllowed(schema: unknown, root = false): boolean {
  if (!isObject(schema)) return false
  if (root && schema.type !== 'object') return false
  if (Object.keys(schema).some((k) => !STRICT_KEYWORDS.has(k))) return false
  if (isObject(schema.properties)) {
    const names = Object.keys(schema.properties)
    const required = Array.isArray(schema.required) ? schema.required : []
    if (schema.additionalProperties !== false || names.some((n) => !required.includes(n))) return false
    if (!Object.values(schema.properties).every((s) => strictAllowed(s))) return false
  } else if (schema.type === 'object' && schema.additionalProperties !== false) return false
  const nested = [schema.items, ...(Array.isArray(schema.anyOf) ? schema.anyOf : [])]
  const defs = [schema.$defs, schema.definitions].flatMap((d) => (isObject(d) ? Object.values(d) : []))
  return [...nested.filter((s) => s !== undefined), ...defs].every((s) => strictAllowed(s))
}

/** What an answer's content came to: the value it holds (and what did not parse cleanly), or what is wrong with it. */
export type Checked = { ok: true; value: unknown; warnings?: string[] } | { ok: false; errors: string[] }

/** Problems listed at most, each at most PROBLEM_CHARS: what a model needs to fix its answer, never a flood. */
const MAX_PROBLEMS = 10
const PROBLEM_CHARS = 200

/** Validators by schema: a record is one frozen object while its text is unchanged (catalog/records.ts). */
const validators = new WeakMap<JsonSchema, SchemaValidator>()

/** Parses an answer's content as JSON and checks it against `schema`. */
export function checkAnswer(schema: JsonSchema, content: unknown): Checked {
  if (typeof content !== 'string') return { ok: false, errors: ['the answer has no text content'] }
  let value: unknown
  try {
    value = JSON.parse(content)
  } catch {
    // JSON.parse's own message quotes the text: the answer is the caller's to read, not the log's.
    return { ok: false, errors: ['the answer is not JSON'] }
  }
  let validator = validators.get(schema)
  if (!validator) validators.set(schema, (validator = schemaValidator(schema, draftOf(schema))))
  let result
  try {
    result = validator.validate(value)
  } catch (e) {
    // An answer too big to check (MAX_VALIDATION_WORK) is the model's fault, not the caller's: an invalid answer.
    if (e instanceof ServiceError && e.code === 'LIMIT_EXCEEDED')
      return { ok: false, errors: [clip(e.message, PROBLEM_CHARS)] }
    throw e
  }
  if (result.valid) return { ok: true, value }
  const errors = validationProblems(result).map((p) => clip(`${jsonPathOf(p.at)} ${p.message}`, PROBLEM_CHARS))
  return { ok: false, errors: errors.slice(0, MAX_PROBLEMS) }
}

/** The user message asking a model again, after an answer that failed `errors`. */
export function retryRequest(errors: readonly string[]): string {
  return `Your answer does not match the required JSON Schema:\n${errors.map((e) => `- ${e}`).join('\n')}\nAnswer again with only the corrected JSON.`
}

function draftOf(schema: JsonSchema): SchemaDraft {
  const uri = typeof schema.$schema === 'string' ? schema.$schema : ''
  if (uri.includes('2020-12')) return '2020-12'
  if (uri.includes('2019-09')) return '2019-09'
  return '7'
}
