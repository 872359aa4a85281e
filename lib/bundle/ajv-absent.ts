/**
 * What `ajv` and `ajv-formats` resolve to in the Worker bundle (wrangler.toml
 * `[alias]`). The MCP SDK's client imports its Ajv validator statically even
 * when given another; ours is given @cfworker/json-schema's (lib/tools/mcp.ts),
 * since Ajv compiles schemas to code and workerd forbids code generation.
 * Standing in for both packages' default export keeps Ajv's compiler (~140 KiB
 * minified with its dependencies) out of the bundle; reaching it is a bug.
 */
export default function ajvAbsent(): never {
  throw new Error('Ajv is not bundled in the Worker: validate with @cfworker/json-schema')
}
