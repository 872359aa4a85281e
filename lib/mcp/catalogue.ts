/**
 * The catalogue as MCP shows it: prompts (rendered by the pipeline), tools
 * (called as templates call them) and shared variables as resources.
 */
import {
  getEnviron,
  getPrompt,
  getTool,
  listEnvironPaths,
  listPrompts,
  listTools,
  normalizeParameters,
  promptDescription,
} from '../catalog'
import type { Message, Prompt, Tool } from '../catalog'
import { ServiceError, clip } from '../errors'
import { isObject } from '../json'
import { renderPrompt } from '../render'
import { invokeTool } from '../tools'
import type { RenderOptions } from '../render'
import { staleOf } from '../store'
import type { Store } from '../store'
import type { ValueMap } from '../template'
import { promptArgs } from './arguments'
import { NoRoom, RPC, RpcError, objectParam, stringParam } from './rpc'

/** What every method reads from: the request's store (its label applied), the render's options, ENVIRON_MAX_BYTES. */
export interface McpContext {
  store: Store
  options: RenderOptions
  environMaxBytes: number
}

const ENVIRON_SCHEME = 'environ://'
/** The setting that bounds a POST's answer: a tool's answer past the room it leaves names it. */
const MCP_MAX_BYTES = 'MCP_MAX_BYTES'
const JSON_TYPE = 'application/json'
/** The characters of a URI an error quotes. */
const QUOTED_URI = 256

/** A page of the prompts: MCP's `cursor` is the listing's (lib/catalog/paging.ts), its `nextCursor` the next page's. */
export async function listPromptsMethod({ store }: McpContext, params: Record<string, unknown>) {
  const { items, next } = await listPrompts(store, { cursor: cursorParam(params) })
  return { prompts: items.map(promptEntry), ...nextCursor(next) }
}

/** MCP's `cursor` of a list method: a string when given. */
function cursorParam(params: Record<string, unknown>): string | undefined {
  const { cursor } = params
  if (cursor === undefined || cursor === null) return undefined
  if (typeof cursor !== 'string') throw new RpcError(RPC.INVALID_PARAMS, 'params.cursor must be a string')
  return cursor
}

/** MCP's `nextCursor`: absent on the last page. */
function nextCursor(next: string | null): { nextCursor?: string } {
  return next === null ? {} : { nextCursor: next }
}

function promptEntry(prompt: Prompt) {
  const { properties, required } = normalizeParameters(prompt.record.parameters)
  const args = Object.entries(properties).map(([name, schema]) => {
    const description = isObject(schema) && typeof schema.description === 'string' ? schema.description : undefined
    return { name, ...(description === undefined ? {} : { description }), required: required.includes(name) }
  })
  const description = promptDescription(prompt)
  return { name: prompt.id, ...(description === undefined ? {} : { description }), arguments: args }
}

/**
 * Renders a prompt: its string arguments typed by its parameters, then the
 * render a /render request makes. MCP prompt messages are `user` or
 * `assistant`: a system message goes as a user message, its text unchanged.
 */
export async function getPromptMethod({ store, options }: McpContext, params: Record<string, unknown>) {
  const id = stringParam(params, 'name')
  // Read first for its parameters: should Redis fail, this prompt's snapshot may answer it.
  staleOf(store)?.reading(id)
  const prompt = await getPrompt(store, id)
  const args = promptArgs(normalizeParameters(prompt.record.parameters), objectParam(params, 'arguments'))
  const rendered = await renderPrompt(store, id, args, options)
  const messages: Message[] =
    typeof rendered.prompt === 'string' ? [{ role: 'user', content: rendered.prompt }] : rendered.prompt
  const description = promptDescription(prompt)
  return {
    ...(description === undefined ? {} : { description }),
    messages: messages.map((m) => ({
      role: m.role === 'assistant' ? 'assistant' : 'user',
      content: { type: 'text', text: m.content },
    })),
    ...(rendered.warnings.length > 0 ? { _meta: { warnings: rendered.warnings } } : {}),
  }
}

export async function listToolsMethod({ store }: McpContext, params: Record<string, unknown>) {
  const { items, next } = await listTools(store, { cursor: cursorParam(params) })
  return { tools: items.map(toolEntry), ...nextCursor(next) }
}

function toolEntry(tool: Tool) {
  return {
    name: tool.id,
    description: tool.record.description,
    inputSchema: normalizeParameters(tool.record.parameters),
    ...outputSchemaOf(tool),
  }
}

/** MCP's outputSchema describes structuredContent, which is an object: a tool's object `returns`. */
function outputSchemaOf(tool: Tool): { outputSchema?: Record<string, unknown> } {
  const { returns } = tool.record
  return isObject(returns) && returns.type === 'object' ? { outputSchema: returns } : {}
}

/**
 * Calls a tool as a template's call would. Its answer is given once, as the
 * text content (JSON as its text), which every client reads; a tool listed
 * with an outputSchema, for which MCP requires structuredContent, also has
 * its JSON object answer there; the others' JSON is given as the tool sent
 * it, never parsed. An answer is read no further than the `room` left in
 * the POST's answer: one that cannot fit there is refused (NoRoom) without
 * being read whole. A failed call is a result with isError and the reason,
 * for the model to read.
 */
export async function callToolMethod({ store, options }: McpContext, params: Record<string, unknown>, room: number) {
  const id = stringParam(params, 'name')
  const args = objectParam(params, 'arguments') as ValueMap
  // Read from the request's fresh store, which the call itself then reads again without a request.
  const structured = outputSchemaOf(await getTool(store, id)).outputSchema !== undefined
  const tools = { ...options.tools, room: { bytes: Math.max(0, room), name: MCP_MAX_BYTES }, asText: !structured }
  const invoked = await invokeTool(store, id, args, { ...options, tools })
  if (!invoked.ok && invoked.limit === MCP_MAX_BYTES) throw new NoRoom(invoked.reason)
  if (!invoked.ok) return { content: [{ type: 'text', text: invoked.reason }], isError: true }
  const { value } = invoked
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null)
  return {
    content: [{ type: 'text', text }],
    ...(structured && isObject(value) ? { structuredContent: value } : {}),
    ...staleMeta(store),
  }
}

/** A result's `_meta` when the request was answered from last good copies (Redis failing), as prompts/get's warnings. */
function staleMeta(store: Store): { _meta?: { warnings: unknown[] } } {
  const warning = staleOf(store)?.warning()
  return warning ? { _meta: { warnings: [warning] } } : {}
}

export async function listResourcesMethod({ store }: McpContext, params: Record<string, unknown>) {
  const { items, next } = await listEnvironPaths(store, { cursor: cursorParam(params) })
  return {
    resources: items.map((path) => ({ uri: environUri(path), name: path, mimeType: JSON_TYPE })),
    ...nextCursor(next),
  }
}

export function listResourceTemplatesMethod() {
  return {
    resourceTemplates: [
      {
        uriTemplate: `${ENVIRON_SCHEME}{+path}`,
        name: 'environ',
        description:
          'A shared variable, its path with slashes for dots (environ://vscode/frameworks), or every variable under a prefix as one object (environ://vscode).',
        mimeType: JSON_TYPE,
      },
    ],
  }
}

/** A variable's JSON; for a prefix of paths, the object its variables form, as GET /api/environs/{id} answers. */
export async function readResourceMethod({ store, environMaxBytes }: McpContext, params: Record<string, unknown>) {
  const uri = stringParam(params, 'uri')
  const path = uri.startsWith(ENVIRON_SCHEME) ? environPath(uri.slice(ENVIRON_SCHEME.length)) : undefined
  if (!path)
    throw new RpcError(RPC.RESOURCE_NOT_FOUND, `no resource ${clip(uri, QUOTED_URI)}: resources are environ://{path}`)
  try {
    const { value } = await getEnviron(store, path, environMaxBytes)
    return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(value) }], ...staleMeta(store) }
  } catch (e) {
    if (e instanceof ServiceError && (e.code === 'NOT_FOUND' || e.code === 'BAD_REQUEST')) {
      throw new RpcError(RPC.RESOURCE_NOT_FOUND, e.message, { code: e.code, uri: clip(uri, QUOTED_URI) })
    }
    throw e
  }
}

/** A segment holding `/` (or `%`) is percent-encoded: the plain ones read as written. */
function environUri(path: string): string {
  return ENVIRON_SCHEME + path.split('.').map(encodeURIComponent).join('/')
}

function environPath(rest: string): string | undefined {
  try {
    return rest.split('/').map(decodeURIComponent).join('.')
  } catch {
    return undefined
  }
}
