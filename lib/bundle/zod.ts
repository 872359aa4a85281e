/**
 * What `zod` resolves to in the Worker bundle (wrangler.toml `[alias]`).
 * @hono/zod-openapi hands zod's `z` namespace to zod-to-openapi and
 * re-exports it, and the routes build their schemas from that `z`: an object
 * passed around whole, so a bundler must keep every member of it (some fifty
 * locales, every kind of schema, the JIT compiler, the JSON Schema
 * converters), most of which the Worker never calls. This `z` has only the
 * members the Worker's sources name (test/unit/bundle-aliases.test.ts holds
 * it to that); zod's own modules import what they use of the rest, English
 * among the locales included. Types, the Node tests and the OpenAPI
 * generator (scripts/openapi-document.mjs) use zod itself.
 */
import {
  ZodError,
  ZodType,
  array,
  boolean,
  enum as enum_,
  literal,
  null as null_,
  number,
  object,
  record,
  string,
  union,
  unknown,
} from 'zod/v4'

export const z = {
  ZodError,
  ZodType,
  array,
  boolean,
  enum: enum_,
  literal,
  null: null_,
  number,
  object,
  record,
  string,
  union,
  unknown,
}
