import { validate } from '@cfworker/json-schema'
import type { Schema, SchemaDraft } from '@cfworker/json-schema'
import { ServiceError } from '../errors'
import { isObject } from '../json'

/** Schemas by URI, as cfworker's dereference lists them: how a `$ref` is followed. */
export type SchemaUris = Record<string, Schema | boolean>

/** What the validator answers. */
export type ValidationResult = ReturnType<typeof validate>

/**
 * Checks `value` against `schema` (its `$ref`s found in `uris`), for
 * requests' and models' values against schemas that arrive at run time
 * (parameters.ts). Where the validator cannot, the value is checked as it
 * can be, so that a bad value is the caller's 4xx, never a crash: it
 * gathers problems by spreading arrays into arrays, which a value of some
 * hundred thousand bad items overflows (then it stops at the first
 * problem); and it cannot write a member name with a lone surrogate (a
 * `\ud800` escape in a body) into a URI, nor check a member set to
 * undefined (an object built in code), so such a value is checked as JSON
 * would carry it. A stack overflow even then (a value or schema nested past
 * what the checks before allow) is the caller's 400, never a crash. With
 * `everyProblem` false, the check stops at the first problem: where every
 * problem would cost more work than a request may.
 */
export function checkValue(
  value: unknown,
  schema: Schema,
  draft: SchemaDraft,
  uris: SchemaUris,
  everyProblem: boolean,
): ValidationResult {
  try {
    return checkOnce(value, schema, draft, uris, everyProblem)
  } catch (e) {
    if (!notJsonEnough(e)) throw e
    return checkOnce(asJson(value), schema, draft, uris, everyProblem)
  }
}

function checkOnce(
  value: unknown,
  schema: Schema,
  draft: SchemaDraft,
  uris: SchemaUris,
  everyProblem: boolean,
): ValidationResult {
  if (everyProblem) {
    try {
      return validate(value, schema, draft, uris, false)
    } catch (e) {
      if (!(e instanceof RangeError)) throw e
    }
  }
  try {
    return validate(value, schema, draft, uris, true)
  } catch (e) {
    if (!(e instanceof RangeError)) throw e
    throw new ServiceError('BAD_REQUEST', `the value could not be checked against its schema: ${e.message}`)
  }
}

function notJsonEnough(e: unknown): boolean {
  return e instanceof URIError || (e instanceof Error && e.message.startsWith('Instances of "undefined" type'))
}

/** `value` as JSON would carry it: members set to undefined left out, lone surrogates in names as U+FFFD. */
function asJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asJson)
  if (!isObject(value)) return value
  return Object.fromEntries(
    Object.entries(value).flatMap(([name, member]) =>
      member === undefined ? [] : [[name.replace(/\p{Cs}/gu, '\ufffd'), asJson(member)]],
    ),
  )
}
