import { dereference } from '@cfworker/json-schema'
import type { Schema } from '@cfworker/json-schema'
import { isObject } from '../json'
import type { JsonObject } from '../json'
import { regexHazard, regexWork } from './regex-safety'
import type { SchemaUris } from './schema-check'
import { describeError } from '../log'

/**
 * Checks a JSON Schema that arrives at run time (a draft's parameters, a
 * stored prompt's or tool's parameters and returns) before
 * @cfworker/json-schema interprets it. That validator recurses without a
 * bound, re-validates every branch (`anyOf`, `if/then/else`) with no
 * memory, compares every pair of items for `uniqueItems` even past
 * `maxItems`, and checks `format: "url"` with a regular expression that
 * backtracks exponentially. A schema is refused, naming the keyword and its
 * JSON pointer, when it has:
 *
 * - a `$ref` that refers to itself, directly or not, or resolves to nothing;
 *   `$recursiveRef`;
 * - nesting, its `$ref`s followed, deeper than MAX_SCHEMA_DEPTH (so the
 *   validator's recursion is bounded);
 * - a weight past MAX_SCHEMA_WEIGHT: the schema with its `$ref`s inlined,
 *   counted with memory rather than by inlining, each subschema 1, plus the
 *   data its keywords compare (`enum`, `const`, `required`), plus
 *   `maxItems` where `uniqueItems` is set. A chain of k `if/then/else` or
 *   `anyOf` levels through `$ref`s weighs 2^k;
 * - `uniqueItems` without `maxItems` of at most MAX_UNIQUE_ITEMS;
 * - a `format` in UNSAFE_FORMATS;
 * - a `pattern` or `patternProperties` regexHazard refuses;
 * - a keyword of the wrong type, which makes the validator throw.
 *
 * What is accepted still has its validation bounded in work: see workOf.
 */
const MAX_SCHEMA_DEPTH = 32
const MAX_SCHEMA_WEIGHT = 10_000
const MAX_UNIQUE_ITEMS = 1000
/**
 * Units of workOf. Measured in Node on a loaded machine (load 7 on 2
 * cores), a unit took 0.2 microseconds for 1 MiB of ordinary objects
 * against a tool's schema (1.3 million units, 250 ms), 0.4 for failing
 * `anyOf`/`oneOf` branches, up to 2.5 where every unit makes an error
 * (`additionalProperties: false` over 50,000 members); patterns at most
 * 0.011 since regexWork counts them. A check that makes an error per unit
 * is what costs seconds; past EVERY_PROBLEM_WORK a check stops at its first
 * problem, so what it costs is what a passing check costs.
 */
export const MAX_VALIDATION_WORK = 2_000_000

/**
 * Units up to which a check reports every problem (at 2.5 microseconds a
 * unit that makes an error, a quarter of a second on a loaded machine).
 */
export const EVERY_PROBLEM_WORK = 100_000

/**
 * Formats whose @cfworker/json-schema check is super-linear (each of its
 * formats was tried on adversarial strings up to 64,000 characters; only
 * this one was not linear: 33 letters took 14 s).
 */
const UNSAFE_FORMATS: Readonly<Record<string, string>> = {
  url: 'is checked with a regular expression that backtracks exponentially on some strings: use "uri"',
}

export interface SchemaHazard {
  keyword: string
  /** A JSON pointer into the schema: `#/properties/tags/uniqueItems`. */
  at: string
  problem: string
}

/** A schema that passed the check: its copy the validator reads, its `$ref`s resolved, and its cost. */
export interface SafeSchema {
  schema: Schema
  uris: SchemaUris
  cost: Cost
}

/**
 * What one validation costs, by depth of the instance: `levels[d]` per
 * unit at depth d (the subschemas that apply at that depth, with the data
 * each compares), `unique[d]` the `uniqueItems` applied at depth d (each
 * compares items' subtrees, see workOf); and the schema's nesting, its
 * `$ref`s followed.
 */
export interface Cost {
  levels: number[]
  unique: number[]
  height: number
  /** Its weight: subschemas and their data, its $refs inlined, each `uniqueItems` as MAX_UNIQUE_ITEMS. */
  size: number
}

/** `from`'s levels into `into`'s, `shift` levels down the instance, combined by `op`. */
function merge(into: Cost, from: Cost, shift: number, op: (a: number, b: number) => number): void {
  from.levels.forEach((w, d) => (into.levels[d + shift] = op(into.levels[d + shift] ?? 0, w)))
  from.unique.forEach((n, d) => (into.unique[d + shift] = op(into.unique[d + shift] ?? 0, n)))
}

export function describeHazard(hazard: SchemaHazard): string {
  return `${hazard.keyword} at ${hazard.at} ${hazard.problem}`
}

/** `schema` checked, and a copy of it ready for the validator; or the first hazard found. */
export function safeSchema(schema: unknown): SafeSchema | SchemaHazard {
  const own = structuredClone(schema) as Schema
  let uris: SchemaUris
  try {
    uris = dereference(own)
  } catch (e) {
    return { keyword: '$id', at: '#', problem: `cannot be resolved: ${describeError(e)}` }
  }
  const walk = new Walk(uris)
  const cost = walk.cost(own, '#', 0)
  if ('keyword' in cost) return cost
  for (const node of walk.unique) guardUniqueItems(node)
  return { schema: own, uris, cost }
}

const IN_PLACE_ONE = ['not', 'if', 'then', 'else'] as const
const IN_PLACE_LIST = ['allOf', 'anyOf', 'oneOf'] as const
const IN_PLACE_MAP = ['dependentSchemas', 'dependencies'] as const
const BELOW_ONE = [
  'additionalItems',
  'contains',
  'unevaluatedItems',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
] as const
const BELOW_MAP = ['properties', 'patternProperties'] as const
/** Keywords the validator iterates or calls methods of: another type makes it throw. */
const ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'required', 'enum'] as const

class Walk {
  private readonly done = new Map<object, Cost>()
  private readonly visiting = new Set<object>()
  /** The subschemas with `uniqueItems`, each once. */
  readonly unique: JsonObject[] = []

  constructor(private readonly uris: SchemaUris) {}

  cost(node: unknown, at: string, depth: number): Cost | SchemaHazard {
    if (!isObject(node)) return { levels: [1], unique: [], height: 0, size: 1 }
    const known = this.done.get(node)
    if (known) {
      if (depth + known.height > MAX_SCHEMA_DEPTH) return tooDeep(at)
      return known
    }
    if (depth > MAX_SCHEMA_DEPTH) return tooDeep(at)
    if (this.visiting.has(node)) return { keyword: '$ref', at, problem: 'refers to a schema containing it: recursive' }
    this.visiting.add(node)
    const found = this.own(node, at, depth)
    this.visiting.delete(node)
    if (!('keyword' in found)) this.done.set(node, found)
    return found
  }

  private own(node: JsonObject, at: string, depth: number): Cost | SchemaHazard {
    const shape = shapeHazard(node, at)
    if (shape) return shape
    const own = ownWeight(node)
    const total: Cost = { levels: [own + patternWork(node)], unique: [], height: 0, size: own }
    // Each member of an instance meets one of `properties`' subschemas at most: the costliest stands for all.
    const members: Cost = { levels: [], unique: [], height: 0, size: 0 }
    if (node.uniqueItems === true) {
      total.unique[0] = 1
      total.size += MAX_UNIQUE_ITEMS
      this.unique.push(node)
    }
    for (const [keyword, sub, subAt, below] of this.children(node, at)) {
      const cost = this.cost(sub, subAt, depth + 1)
      if ('keyword' in cost) return cost
      if (keyword === 'properties') merge(members, cost, 0, Math.max)
      else merge(total, cost, below ? 1 : 0, (a, b) => a + b)
      total.size += cost.size
      total.height = Math.max(total.height, cost.height + 1)
      if (total.size > MAX_SCHEMA_WEIGHT) {
        const problem = `makes the schema weigh more than ${MAX_SCHEMA_WEIGHT} (its $refs inlined): its validation would try too many subschemas`
        return { keyword, at: `${at}/${keyword}`, problem }
      }
    }
    // Each member's name (its units, one level down) is matched against every pattern.
    members.levels[0] = (members.levels[0] ?? 0) + namesWork(node)
    merge(total, members, 1, (a, b) => a + b)
    return total
  }

  /** Each subschema the validator may apply here: keyword, schema, pointer, whether one level down the instance. */
  private *children(node: JsonObject, at: string): Generator<[string, unknown, string, boolean]> {
    const ref = node.$ref
    if (typeof ref === 'string') {
      const absolute = (node as { __absolute_ref__?: string }).__absolute_ref__ ?? ref
      yield ['$ref', this.uris[absolute] ?? missing(ref), `${at}/$ref`, false]
    }
    for (const k of IN_PLACE_ONE) if (k in node) yield [k, node[k], `${at}/${k}`, false]
    for (const k of IN_PLACE_LIST)
      for (const [i, sub] of listOf(node[k]).entries()) yield [k, sub, `${at}/${k}/${i}`, false]
    for (const k of IN_PLACE_MAP)
      for (const [name, sub] of entriesOf(node[k]))
        if (!Array.isArray(sub)) yield [k, sub, `${at}/${k}/${pointer(name)}`, false]
    for (const k of BELOW_ONE) if (k in node) yield [k, node[k], `${at}/${k}`, true]
    for (const k of BELOW_MAP)
      for (const [name, sub] of entriesOf(node[k])) yield [k, sub, `${at}/${k}/${pointer(name)}`, true]
    for (const k of ['items', 'prefixItems'] as const) {
      const items = node[k]
      if (Array.isArray(items)) for (const [i, sub] of items.entries()) yield [k, sub, `${at}/${k}/${i}`, true]
      else if (k === 'items' && items !== undefined) yield [k, items, `${at}/${k}`, true]
    }
  }
}

/** A `$ref` the lookup lacks: the walk reports it where it meets it. */
const UNRESOLVED = Symbol('unresolved')
function missing(ref: string): { [UNRESOLVED]: string } {
  return { [UNRESOLVED]: ref }
}

function tooDeep(at: string): SchemaHazard {
  return { keyword: '$ref', at, problem: `nests subschemas deeper than ${MAX_SCHEMA_DEPTH} levels, its $refs followed` }
}

/** What makes the validator throw or loop here, checked before anything below. */
function shapeHazard(node: JsonObject, at: string): SchemaHazard | undefined {
  const unresolved = (node as { [UNRESOLVED]?: string })[UNRESOLVED]
  if (unresolved !== undefined) return { keyword: '$ref', at, problem: `"${unresolved}" resolves to no schema in it` }
  if ('$recursiveRef' in node) return { keyword: '$recursiveRef', at: `${at}/$recursiveRef`, problem: 'is recursive' }
  for (const k of ARRAYS)
    if (k in node && !Array.isArray(node[k])) return { keyword: k, at: `${at}/${k}`, problem: 'must be an array' }
  if ('$ref' in node && typeof node.$ref !== 'string')
    return { keyword: '$ref', at: `${at}/$ref`, problem: 'must be a string' }
  if (node.uniqueItems === true) {
    const max = node.maxItems
    if (typeof max !== 'number' || !Number.isInteger(max) || max > MAX_UNIQUE_ITEMS) {
      const problem = `needs maxItems of at most ${MAX_UNIQUE_ITEMS}: its check compares every pair of items`
      return { keyword: 'uniqueItems', at: `${at}/uniqueItems`, problem }
    }
  }
  const format = node.format
  if (typeof format === 'string' && Object.hasOwn(UNSAFE_FORMATS, format))
    return { keyword: 'format', at: `${at}/format`, problem: `"${format}" ${UNSAFE_FORMATS[format]}` }
  if ('pattern' in node) {
    const why = typeof node.pattern === 'string' ? regexHazard(node.pattern) : 'must be a string'
    if (why) return { keyword: 'pattern', at: `${at}/pattern`, problem: why }
  }
  for (const [name] of entriesOf(node.patternProperties)) {
    const why = regexHazard(name)
    if (why) return { keyword: 'patternProperties', at: `${at}/patternProperties/${pointer(name)}`, problem: why }
  }
  return undefined
}

/** What one application of the node costs besides its subschemas: 1, and the data it compares or iterates. */
function ownWeight(node: JsonObject): number {
  let weight = 1
  for (const k of ['enum', 'const', 'required', 'type', 'dependentRequired'] as const)
    if (k in node) weight += sizeOf(node[k])
  for (const k of [...BELOW_MAP, ...IN_PLACE_MAP] as const) weight += entriesOf(node[k]).length
  return weight
}

/** What matching the node's `pattern` costs by unit of a string (CHARS_PER_UNIT characters), as regexWork bounds it. */
function patternWork(node: JsonObject): number {
  return typeof node.pattern === 'string' ? regexWork(node.pattern) : 0
}

/** The same for its `patternProperties`: each member's name (its units, a level down) meets each. */
function namesWork(node: JsonObject): number {
  return entriesOf(node.patternProperties).reduce((w, [name]) => w + regexWork(name), 0)
}

/** The number of JSON values in `value` (a schema's data is bounded by the body or record it came in). */
function sizeOf(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + sizeOf(v), 1)
  if (isObject(value)) return Object.values(value).reduce<number>((n, v) => n + sizeOf(v), 1)
  return 1
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function entriesOf(value: unknown): [string, unknown][] {
  return isObject(value) ? Object.entries(value) : []
}

function pointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1')
}

/**
 * The validator checks `uniqueItems` on the whole array even when it has
 * more than `maxItems` items: it is moved under an `if` that only an array
 * of at most `maxItems` items passes (a longer one fails `maxItems`
 * itself), so it compares at most maxItems^2 pairs.
 */
function guardUniqueItems(node: JsonObject): void {
  delete node.uniqueItems
  const guard = { if: { maxItems: node.maxItems }, then: { uniqueItems: true } }
  node.allOf = [...listOf(node.allOf), guard]
}

/** Characters of a string (or member name) one unit of the instance stands for: the validator scans strings fast. */
const CHARS_PER_UNIT = 16

interface Measured {
  depth: number
  parent: number
  /** Its own units: 1, its members or items, its string's characters by CHARS_PER_UNIT. */
  units: number
  /** The units of its whole subtree (summed in a second pass). */
  subtree: number
  /** Its items, when it is an array. */
  items: number | undefined
}

/**
 * An upper bound on the work of validating `value` against a schema of
 * `cost`, in units: the instance is measured by depth (each value 1, plus
 * its members or items, plus its strings' and names' characters by
 * CHARS_PER_UNIT), and each unit at depth d meets at most levels[d] of the
 * schema's applications (each with the data it compares); each
 * `uniqueItems` at depth d compares, in an array of n items at most
 * MAX_UNIQUE_ITEMS (the longer ones fail `maxItems` first), n times the
 * array's subtree. Linear in the value (a walk without recursion); the
 * validator is not run when this passes MAX_VALIDATION_WORK.
 */
export function workOf(cost: Cost, value: unknown): number {
  const nodes: Measured[] = []
  const values: unknown[] = [value]
  for (let i = 0; i < values.length; i++) {
    const node = values[i]
    const depth = i === 0 ? 0 : (nodes[i] as Measured).depth
    const measured = nodes[i] ?? { depth, parent: -1, units: 0, subtree: 0, items: undefined }
    nodes[i] = measured
    const children: [unknown, number][] = []
    if (typeof node === 'string') measured.units += 1 + Math.floor(node.length / CHARS_PER_UNIT)
    else if (Array.isArray(node)) {
      measured.items = node.length
      for (const item of node) children.push([item, 0])
    } else if (isObject(node)) {
      for (const [name, member] of Object.entries(node))
        children.push([member, Math.floor(name.length / CHARS_PER_UNIT)])
    }
    if (typeof node !== 'string') measured.units += 1 + children.length
    for (const [child, nameUnits] of children) {
      nodes[values.length] = { depth: depth + 1, parent: i, units: nameUnits, subtree: 0, items: undefined }
      values.push(child)
    }
  }
  let work = 0
  for (let i = nodes.length - 1; i >= 0; i--) {
    const { depth, parent, units, items } = nodes[i] as Measured
    const measured = nodes[i] as Measured
    measured.subtree += units
    if (parent >= 0) (nodes[parent] as Measured).subtree += measured.subtree
    work += (cost.levels[depth] ?? 0) * units
    if (items !== undefined && items <= MAX_UNIQUE_ITEMS) work += (cost.unique[depth] ?? 0) * items * measured.subtree
  }
  return work
}
