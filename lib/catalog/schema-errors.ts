import { deepCompareStrict } from '@cfworker/json-schema'
import type { OutputUnit, Schema } from '@cfworker/json-schema'
import { isObject } from '../json'

// Records were once checked by validators Ajv generated, and their problems
// worded from Ajv's errors. People and scripts read those words (records'
// reasons, the CLI, 400 answers), so @cfworker/json-schema's output is
// worded the same, in the order Ajv found the problems. scripts/generate.mjs
// lets jsonschema/ use only the keywords worded here (WORDED).

/** Schemas by URI, as cfworker's dereference lists them: how a `$ref` is followed. */
export type SchemaUris = Record<string, Schema | boolean>

/** One thing wrong with a value: where (the member names and indexes down to it), and what. */
export interface WordedProblem {
  at: string[]
  problem: string
}

/**
 * A unit placed where Ajv would have placed its error: in the value, in the
 * schema, and in the order of Ajv's errors.
 */
interface Found {
  keyword: string
  /** cfworker's own words. */
  error: string
  /** Where in the value, as cfworker writes it: only compared. */
  instance: string
  at: string[]
  /** The value there. */
  data: unknown
  /** The schema holding the keyword. */
  schema: unknown
  /** Ajv's schemaPath: from the root of the schema or definition holding the keyword, each `$ref` a function of its own. */
  path: string
  /** Ajv's order, compared lexicographically. */
  order: number[]
}

/** Units saying only that a schema inside failed; Ajv had no error of its own there. */
const WRAPPERS = new Set(['properties', 'additionalProperties', 'items', 'allOf', '$ref'])

/**
 * Ajv's order of evaluation (draft-07): the keywords for any type, then
 * those of numbers, strings, arrays (uniqueItems after the item keywords)
 * and objects, each typed group only for a value of its type.
 */
const FOR_ANY = ['const', 'enum', 'not', 'anyOf', 'oneOf', 'allOf', 'if', 'then', 'else']
const FOR_TYPE: Readonly<Record<string, readonly string[]>> = {
  number: ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf'],
  string: ['maxLength', 'minLength', 'pattern', 'format'],
  array: ['maxItems', 'minItems', 'additionalItems', 'items', 'contains', 'uniqueItems'],
  object: [
    'maxProperties',
    'minProperties',
    'required',
    'propertyNames',
    'additionalProperties',
    'dependencies',
    'properties',
    'patternProperties',
  ],
}
const RANKS = new Map([...FOR_ANY, ...Object.values(FOR_TYPE).flat()].map((keyword, i) => [keyword, i]))
const rank = (keyword: string): number => RANKS.get(keyword) ?? RANKS.size

/**
 * The problems Ajv would have reported for these units, in its order and
 * words, those restating others left out. `root` is the schema validated,
 * `value` the value, both as cfworker had them.
 */
export function wordUnits(
  units: readonly OutputUnit[],
  root: Schema,
  uris: SchemaUris,
  value: unknown,
): WordedProblem[] {
  const errors = units
    .filter((unit) => !WRAPPERS.has(unit.keyword))
    .map((unit) => locate(unit, root, uris, value))
    .sort((a, b) => compareOrder(a.order, b.order))
  return relevant(errors).flatMap((error) => {
    const problem = describe(error, errors)
    return problem === undefined ? [] : [{ at: error.at, problem }]
  })
}

function locate(unit: OutputUnit, root: Schema, uris: SchemaUris, value: unknown): Found {
  const steps = unit.keywordLocation.split('/').slice(1)
  const at = unit.instanceLocation.split('/').slice(1).map(decode)
  let schema: unknown = root
  let data = value
  let depth = 0
  let path = '#'
  const order: number[] = []
  /** One member or item down the value; its place among its siblings. */
  const down = (): number => {
    const name = at[depth++] ?? ''
    const place = isObject(data) ? Object.keys(data).indexOf(name) : Number(name)
    data = field(data, name)
    return place
  }
  for (let i = 0; i < steps.length - 1; i++) {
    const step = steps[i] ?? ''
    if (step === 'allOf' && isUniqueItemsGuard(field(field(schema, step), decode(steps[i + 1] ?? '')))) {
      // The guard's `uniqueItems` is worded as the one it stands for, on the array's schema.
      i += 2
      continue
    }
    if (step === '$ref') {
      // Where dereference noted the `$ref` leads, resolved against its schema's URI.
      schema = uris[String(field(schema, '__absolute_ref__'))]
      path = '#'
      continue
    }
    path += `/${step}`
    let inner = field(schema, step)
    let place = 0
    if (step === 'properties' || step === 'allOf' || step === 'anyOf' || step === 'oneOf') {
      const name = decode(steps[++i] ?? '')
      path += `/${steps[i]}`
      // Ajv goes through properties in the schema's order, branches in theirs.
      place = isObject(inner) ? Object.keys(inner).indexOf(name) : Number(name)
      inner = field(inner, name)
      if (step === 'properties') down()
    } else if (step === 'items' || step === 'additionalProperties') {
      place = down()
    }
    order.push(rank(step === 'then' || step === 'else' ? 'if' : step), place)
    schema = inner
  }
  const { keyword } = unit
  path += `/${steps.at(-1) ?? ''}`
  order.push(keyword === 'type' ? typeRank(schema) : rank(keyword))
  // Ajv reports a oneOf or anyOf after the errors of its branches.
  if (keyword === 'oneOf' || keyword === 'anyOf') order.push(Infinity)
  return { keyword, error: unit.error, instance: unit.instanceLocation, at, data, schema, path, order }
}

/**
 * `{if: {maxItems}, then: {uniqueItems: true}}`: how scripts/generate.mjs
 * and schema-safety.ts keep @cfworker/json-schema from comparing the pairs
 * of an array too long for its `maxItems`.
 */
function isUniqueItemsGuard(branch: unknown): boolean {
  const then = field(branch, 'then')
  return (
    isObject(branch) &&
    Object.keys(branch).length === 2 &&
    typeof field(field(branch, 'if'), 'maxItems') === 'number' &&
    isObject(then) &&
    Object.keys(then).length === 1 &&
    then.uniqueItems === true
  )
}

/**
 * Ajv checks a lone `type` among the keywords of that type, after those for
 * any type, when the schema has some; any other `type` first.
 */
function typeRank(schema: unknown): number {
  const type = String(field(schema, 'type'))
  const group = Object.hasOwn(FOR_TYPE, type) ? FOR_TYPE[type] : undefined
  if (!group?.some((k) => field(schema, k) !== undefined)) return -1
  return rank(group.at(-1) ?? '') + 0.5
}

function compareOrder(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return (a[i] ?? 0) < (b[i] ?? 0) ? -1 : 1
  }
  return a.length - b.length
}

/**
 * Drops the errors that only restate others: the branches of a failed
 * oneOf/anyOf (the oneOf/anyOf error says it better), and if/then wrappers
 * (the `then` branch's own error is kept).
 */
function relevant(errors: readonly Found[]): Found[] {
  const combinators = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf')
  return errors.filter((e) => e.keyword !== 'if' && !combinators.some((c) => c !== e && branchOf(e, c)))
}

/** As Ajv saw it: a branch of a `$ref`'d schema is not one, its path starting again at `#`. */
const branchOf = (error: Found, combinator: Found): boolean =>
  error.instance === combinator.instance && error.path.startsWith(`${combinator.path}/`)

/** Ajv's words for the error; undefined for a cfworker unit Ajv had no error for. */
function describe(error: Found, errors: readonly Found[]): string | undefined {
  const value = field(error.schema, error.keyword)
  switch (error.keyword) {
    case 'oneOf':
    case 'anyOf': {
      const names = requiredAlternatives(error, errors)
      if (names) return `must have ${error.keyword === 'oneOf' ? 'exactly' : 'at least'} one of ${names}`
      return `must match ${error.keyword === 'oneOf' ? 'exactly one' : 'at least one'} of the allowed shapes`
    }
    case 'enum':
      return `must be one of ${(value as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
    case 'const':
      return `must be ${JSON.stringify(value)}`
    case 'type':
      return `must be ${String(value)}`
    case 'required': {
      const name = missingProperty(error)
      return name === undefined ? plain(error) : `must have required property '${name}'`
    }
    case 'minLength':
      return `must NOT have fewer than ${String(value)} characters`
    case 'maxLength':
      return `must NOT have more than ${String(value)} characters`
    case 'minItems':
      return `must NOT have fewer than ${String(value)} items`
    case 'maxItems':
      return `must NOT have more than ${String(value)} items`
    case 'pattern':
      return `must match pattern "${String(value)}"`
    case 'uniqueItems': {
      const pair = duplicatePair(error.data, field(error.schema, 'items'))
      return pair && `must NOT have duplicate items (items ## ${pair[0]} and ${pair[1]} are identical)`
    }
    default:
      return plain(error)
  }
}

/** cfworker's words, for a keyword our schemas do not use. */
const plain = (error: Found): string => error.error.replace(/^Instance /, '').replace(/\.$/, '')

const missingProperty = (error: Found): string | undefined => /required property "(.*)"\.$/s.exec(error.error)?.[1]

/**
 * For `oneOf: [{required: [a]}, {required: [b]}]` (or anyOf), the words
 * "'a' or 'b'": from the branches' own errors, each a missing property, or,
 * when branches matched rather than failed, from the schema.
 */
function requiredAlternatives(error: Found, errors: readonly Found[]): string | undefined {
  const branches = errors.filter((e) => e !== error && branchOf(e, error))
  const missing = branches.map((b) =>
    b.keyword === 'required' && b.path === `${error.path}/${b.path.split('/').at(-2)}/required`
      ? missingProperty(b)
      : undefined,
  )
  const names = branches.length > 0 ? missing : error.keyword === 'oneOf' ? requiredOfEach(error) : undefined
  if (!names || names.length === 0 || names.some((n) => n === undefined)) return undefined
  return names.map((n) => `'${n}'`).join(' or ')
}

/** The property each branch of a oneOf requires, when each requires one. */
function requiredOfEach(error: Found): (string | undefined)[] | undefined {
  const branches = field(error.schema, 'oneOf')
  if (!Array.isArray(branches)) return undefined
  const required = branches.map((b) => field(b, 'required'))
  return required.every((r) => Array.isArray(r) && r.length === 1)
    ? required.map((r) => String((r as unknown[])[0]))
    : undefined
}

/**
 * The equal items Ajv names, as [j, i]. When the items' schema gives them
 * types, none object or array (`tools`: strings), Ajv compares only items of
 * those types, scanning down from the last for one equal to an item after
 * it; otherwise it scans down for one equal to an item before it.
 */
function duplicatePair(items: unknown, itemSchema: unknown): readonly [number, number] | undefined {
  if (!Array.isArray(items)) return undefined
  const types = [field(itemSchema, 'type') ?? []].flat().map(String)
  if (types.length > 0 && !types.some((t) => t === 'object' || t === 'array')) {
    const seen = new Map<unknown, number>()
    for (let i = items.length - 1; i >= 0; i--) {
      const item: unknown = items[i]
      if (!types.some((t) => isOfType(item, t))) continue
      const j = seen.get(item)
      if (j !== undefined) return [j, i]
      seen.set(item, i)
    }
    return undefined
  }
  for (let i = items.length - 1; i > 0; i--) {
    for (let j = i - 1; j >= 0; j--) if (deepCompareStrict(items[i], items[j])) return [j, i]
  }
  return undefined
}

function isOfType(item: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(item)
  if (type === 'null') return item === null
  return typeof item === type
}

/** An own member of an object or an item of an array; undefined for anything else. */
function field(node: unknown, name: string): unknown {
  return (isObject(node) || Array.isArray(node)) && Object.hasOwn(node, name)
    ? (node as Record<string, unknown>)[name]
    : undefined
}

/** A segment of cfworker's pointers: URI-encoded, then JSON Pointer-escaped. */
function decode(segment: string): string {
  return decodeURIComponent(segment).replaceAll('~1', '/').replaceAll('~0', '~')
}
