import extension from '../../jsonschema/extension.json'
import parameters from '../../jsonschema/parameters.json'
import prompt from '../../jsonschema/prompt.json'
import tool from '../../jsonschema/tool.json'

// The stored records' JSON Schemas as components of the OpenAPI document.
// Only the document's generator needs them (functions/openapi.ts, run at
// build time): the Worker's routes refer to them by name (recordSchema).

/** jsonschema/ files by component name; their file names are how they refer to each other. */
const RECORD_SCHEMAS = [
  ['Extension', 'extension.json', extension],
  ['Prompt', 'prompt.json', prompt],
  ['Parameters', 'parameters.json', parameters],
  ['Tool', 'tool.json', tool],
] as const

/**
 * The record schemas, as the document's components. They are draft-07
 * files that point at each other by file name and at their own
 * `definitions`; here each definition becomes a component of its own
 * (`Prompt.message`) and every `$ref` points into the document.
 */
export function recordSchemaComponents(): Record<string, object> {
  const names = new Map<string, string>(RECORD_SCHEMAS.map(([name, file]) => [file, name]))
  const components: Record<string, object> = {}
  for (const [name, file, schema] of RECORD_SCHEMAS) {
    const { $schema: _, $id: __, definitions, ...root } = schema as Record<string, unknown>
    const refs = (value: unknown) => rewriteRefs(value, file, names)
    components[name] = refs(root) as object
    for (const [definition, body] of Object.entries((definitions ?? {}) as Record<string, unknown>)) {
      components[`${name}.${definition}`] = refs(body) as object
    }
  }
  return components
}

function rewriteRefs(value: unknown, file: string, names: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, file, names))
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' ? componentRef(v, file, names) : rewriteRefs(v, file, names),
    ]),
  )
}

/** `prompt.json#/definitions/supports`, or `#/definitions/x` inside `file`, as a component reference. */
function componentRef(ref: string, file: string, names: ReadonlyMap<string, string>): string {
  const [target = '', pointer = ''] = ref.split('#')
  const name = names.get(target || file)
  const definition = /^\/definitions\/([^/]+)$/.exec(pointer)?.[1]
  if (name === undefined || (pointer !== '' && definition === undefined)) {
    throw new Error(`jsonschema/${file}: cannot place $ref ${ref} in the OpenAPI document`)
  }
  return `#/components/schemas/${definition ? `${name}.${definition}` : name}`
}

/** The component name of a record's schema, as routes refer to it. */
export type RecordSchemaName = (typeof RECORD_SCHEMAS)[number][0]
