import { version } from '../package.json'
import { openapiDocumentOf } from '../lib/http/openapi-document'

/**
 * The OpenAPI 3.1 document of `app`, generated from its routes' own
 * declarations (their zod schemas are the ones that validate requests).
 * It depends on nothing at run time, so scripts/generate.mjs builds it at
 * build time into public/openapi.json, a static asset GET /openapi.json
 * answers with: neither the generator nor the document is in the Worker.
 */
export function openapiDocument(app: Parameters<typeof openapiDocumentOf>[0]) {
  return openapiDocumentOf(app, {
    info: {
      title: 'AI-Prompt-Shell',
      version,
      description:
        'Serves prompt extensions, prompts, shared variables and tools from Redis, and renders Go text/template prompts.',
    },
    security: [{ bearerAuth: [] }],
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'API_TOKEN, when the service has one; without it /api is open.',
      },
    },
  })
}
