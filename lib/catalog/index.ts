/**
 * The catalogue: the four kinds of `shenma:` records, read from a store,
 * validated against jsonschema/, and named the way the API and templates
 * name them. Invalid records never break a listing: they are skipped,
 * logged, and reported.
 */
export { listExtensions, getExtension } from './extensions'
export type { Extension } from './extensions'
export { listPrompts, getPrompt, promptKind } from './prompts'
export type { Prompt, PromptKind } from './prompts'
export { listEnvironPaths, getEnviron, nestRecords } from './environs'
export { listTools, getTool } from './tools'
export type { Tool } from './tools'
export { normalizeParameters, parametersValidator } from './parameters'
export type * from './types'
export { schemaProblems } from './validate'
export type { SchemaProblem } from './validate'
export { validateExtension, validatePrompt, validateTool } from './validators.generated'
