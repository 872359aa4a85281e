// What `@asteasolutions/zod-to-openapi` resolves to in the Worker bundle
// (wrangler.toml `[alias]`). The Worker serves a document made at build time
// (functions/openapi.ts, scripts/openapi-document.mjs) and never generates
// one, so nothing in it reads what the routes declare for the document: the
// registry keeps nothing, `.openapi()` adds nothing to a schema (validation
// is the schema's own), and the generators are absent. That spares the
// Worker the package's code and, at start-up, a copy of every schema that
// `.openapi()` would make. JavaScript, because the package's dist file has no
// types of its own; types, the Node tests and the generator use the package.

export class OpenAPIRegistry {
  /** Read by @hono/zod-openapi when one app is mounted in another: nothing to merge. */
  definitions = []
  register(_refId, schema) {
    return schema
  }
  registerParameter(_refId, schema) {
    return schema
  }
  registerPath() {}
  registerWebhook() {}
  registerComponent(type, name) {
    return { name, ref: { $ref: `#/components/${type}/${name}` } }
  }
}

export function extendZodWithOpenApi(zod) {
  if (typeof zod.ZodType.prototype.openapi === 'function') return
  zod.ZodType.prototype.openapi = function openapi() {
    return this
  }
}

export function getOpenApiMetadata() {
  return {}
}

export const OpenApiGeneratorV3 = undefined
export const OpenApiGeneratorV31 = undefined
