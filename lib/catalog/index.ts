/**
 * The catalogue: the four kinds of `shenma:` records, read from a store,
 * validated against jsonschema/, and named the way the API and templates
 * name them. Invalid records never break a listing: they are skipped,
 * logged, and reported.
 */
export { listExtensions, getExtension } from './extensions'
export type { Extension } from './extensions'
export { DRAFT_ID, draftOver, draftPrompt, getPrompt, promptDescription, promptKind } from './prompts'
export { listPrompts } from './prompt-list'
export type { PromptPageRequest } from './prompt-list'
export { DEFAULT_PAGE, MAX_CURSOR_CHARS, MAX_PAGE, allPages } from './paging'
export type { PageRequest, Paged } from './paging'
export type { Prompt, PromptKind } from './prompts'
export { environsTooLarge, listEnvironPaths, getEnviron, nestRecords, present } from './environs'
export { TREE_BYTES, basePaths, baseUrlOf, loadVariables, missingPath, missingVariable } from './variables'
export { MAX_TOOL_KEYS, findTools, listTools, getTool } from './tools'
export { grpcMethodOf } from './grpc'
export type { GrpcMethod } from './grpc-descriptor'
export type { Tool } from './tools'
export { normalizeParameters, schemaValidator, validationProblems, withDefaults } from './parameters'
export { returnsSchema } from './record-schemas'
export type { SchemaValidator, ValueProblem } from './parameters'
export { ID_RULES, MAX_ENVIRON_SEGMENTS, MAX_ID_LENGTH, MAX_PROMPT_DOTS, TOO_LONG, checkId, idProblem } from './ids'
export type { IdKind, IdRule } from './ids'
export type * from './types'
export { MESSAGE_ROLES } from './types'
export { jsonPathOf, schemaProblems } from './validate'
export type { SchemaProblem } from './validate'
export { parsePrompt } from './parse'
export type { ParsedPrompt } from './parse'
export { checkRecords } from './check'
export type { CheckOptions, Findings, Problem, RecordFile } from './check'
export { casesProblems } from './tests'
export { catalogueNeeds, declaredParameters, filePrompts, strictFindings, withRecords } from './strict'
export type { Catalogue, FilePrompt } from './strict'
export {
  ID_KIND,
  RECORD_KIND,
  RECORD_KINDS,
  STORED_AS,
  getServedPrompt,
  layerOf,
  promptAt,
  recordKey,
  recordVersion,
  recordVersions,
} from './versions'
export type { Layer, RecordKind, Served } from './versions'
export { promptIn } from './prompts'
