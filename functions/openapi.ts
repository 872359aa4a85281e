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
      // Markdown: Swagger UI shows it at the top of /docs, the playground's link one click away.
      description:
        'Serves prompt extensions, prompts, shared variables and tools from Redis, and renders Go text/template prompts.\n\n' +
        'Try the prompts in the [playground](/playground): pick one, type its args, see it rendered and its tool calls. ' +
        'Here, each operation\'s "Try it out" is pre-filled with records of the example catalogue (examples/, what `npm run dev` serves); ' +
        'writes need ADMIN_TOKEN and Redis (`npm run dev:redis`).',
    },
    security: [{ bearerAuth: [] }],
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description:
          'API_TOKEN, when the service has one (without it, reads are open); ADMIN_TOKEN for writes, which may read too.',
      },
    },
  })
}
