// What `@asteasolutions/zod-to-openapi` resolves to in the Worker bundle
// (wrangler.toml `[alias]`). @hono/zod-openapi imports the document
// generators along with the registry, but the Worker serves a document made
// at build time (functions/openapi.ts, scripts/openapi-document.mjs) and
// never generates one: the package's own registry and `.openapi()` extension
// stay, the generators are absent (`getOpenAPI31Document` would throw).
// JavaScript, because the package's dist file has no types of its own; types,
// the Node tests and the generator use the package itself.
export {
  OpenAPIRegistry,
  extendZodWithOpenApi,
  getOpenApiMetadata,
} from '@asteasolutions/zod-to-openapi/dist/index.mjs'

export const OpenApiGeneratorV3 = undefined
export const OpenApiGeneratorV31 = undefined
