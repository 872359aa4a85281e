/**
 * The records as the catalogue hands them out, after validation against
 * jsonschema/. These types mirror those schemas; the schemas are the truth.
 * Records keep the fields they were stored with, known to us or not.
 */
export type JsonSchema = { [keyword: string]: unknown }

/** `parameters` as stored: one of three shapes (see jsonschema/parameters.json). */
export type ParametersInput = ParameterEntry[] | JsonSchema

export interface ParameterEntry {
  name: string
  type?: string
  description?: string
  required?: boolean
  default?: unknown
  enum?: unknown[]
}

/** The one shape every `parameters` is normalised to. */
export interface ParametersSchema {
  type: 'object'
  properties: Record<string, JsonSchema | boolean>
  required: string[]
  [keyword: string]: unknown
}

/** The roles of jsonschema/prompt.json's messages. */
export const MESSAGE_ROLES = ['system', 'user', 'assistant'] as const

/** The one message type: a prompt's templates, a rendered prompt's messages, what a chat sends. */
export interface Message {
  role: (typeof MESSAGE_ROLES)[number]
  content: string
}

export interface PromptRecord {
  name?: string
  description?: string
  prompt?: string
  messages?: Message[]
  supports?: string[]
  parameters?: ParametersInput
  /** The tools the model may call when the prompt is sent to /chat, by function name. */
  tools?: string[]
  returns?: unknown
  /** Its test cases: lib/prompt-tests' TestCase each, as jsonschema/prompt.json checks them. */
  tests?: unknown[]
  [field: string]: unknown
}

export interface ExtensionRecord {
  name: string
  version: string
  extensionType: string
  publisher?: string
  displayName?: string
  description?: string
  contributes: {
    prompts?: (PromptRecord & { name: string })[]
    [field: string]: unknown
  }
  [field: string]: unknown
}

/** What every tool has, whatever its type. */
interface ToolRecordBase {
  name: string
  module: string
  description: string
  supports?: string[]
  parameters: ParametersInput
  returns?: unknown
  [field: string]: unknown
}

/** A tool called over HTTP (lib/tools/rest.ts). */
export interface RestToolRecord extends ToolRecordBase {
  type: 'restful'
  restful: { url: string; method?: 'GET' | 'POST' | 'PUT' | 'DELETE' }
}

/** A tool of an MCP server (lib/tools/mcp-client.ts). */
export interface McpToolRecord extends ToolRecordBase {
  type: 'mcp'
  mcp: { url: string; tool?: string }
}

/** A tool of a gRPC service, over Connect or gRPC-Web (lib/tools/grpc.ts). */
export interface GrpcToolRecord extends ToolRecordBase {
  type: 'grpc'
  grpc: {
    url: string
    service: string
    method: string
    protocol?: 'connect' | 'grpc-web'
    /** Base64 of a serialized google.protobuf.FileDescriptorSet (catalog/grpc.ts decodes it). */
    descriptor?: string
  }
}

/** A tool, by its `type`: the schema requires the section its type names. */
export type ToolRecord = RestToolRecord | McpToolRecord | GrpcToolRecord

/** A record that could not be used, and why. It is logged and reported beside listings. */
export interface Skip {
  key: string
  reason: string
}

/** What a listing returns: the usable items, and the records it had to skip. */
export interface Listing<T> {
  items: T[]
  skipped: Skip[]
}
