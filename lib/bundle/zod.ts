/**
 * What `zod` resolves to in the Worker bundle (wrangler.toml `[alias]`).
 * @hono/zod-openapi hands zod's whole `z` namespace to zod-to-openapi and
 * re-exports it, so a bundler must keep every member of it: some fifty
 * locales (~260 KiB minified), the JIT compiler, and the JSON Schema
 * converters, none of which the Worker calls. This `z` is zod's own
 * (`zod/v4`) with those members replaced: English alone among the locales,
 * as zod configures by default, and the rest absent. Types still come from
 * zod itself; tests run on it.
 */
import en from 'zod/v4/locales/en.js'
import * as z from './zod'

export * from 'zod/v4'
export { z, z as default }

export const locales = { en }
// Never called through `z` here: zod's classes import what they use of these directly.
export const core = undefined
export const compile = undefined
export const fromJSONSchema = undefined
export const toJSONSchema = undefined
