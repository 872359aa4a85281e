import * as z from 'zod/mini'
import { misconfigured } from '../lib/errors'
import { errorsOf, Routes, defineRoute, described, settingsOf } from '../lib/http'

const documentRoute = defineRoute('get', '/openapi.json', () => ({
  tags: ['service'],
  summary: 'This document: the OpenAPI 3.1 description of every route',
  security: [],
  responses: {
    200: {
      description: 'The OpenAPI document',
      content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
    },
    ...errorsOf('MISCONFIGURED'),
  },
}))

const pageRoute = defineRoute('get', '/docs', () => ({
  tags: ['service'],
  summary: 'A Swagger UI page for the document',
  security: [],
  responses: { 200: { description: 'An HTML page', content: { 'text/html': { schema: z.string() } } }, ...errorsOf() },
}))

const rootRoute = defineRoute('get', '/', () => ({
  tags: ['service'],
  summary: 'Redirects to /docs, the Swagger UI page',
  security: [],
  responses: {
    302: {
      description: 'To /docs',
      headers: z.object({ Location: described(z.string(), { example: '/docs' }) }),
    },
    ...errorsOf(),
  },
}))

/**
 * The Swagger UI page. Its script and stylesheet come from this origin
 * (/swagger-ui/: wrangler.toml's [assets], filled from the pinned
 * swagger-ui-dist by scripts/swagger-ui-assets.mjs), so it works with no
 * internet. The validator badge is off: it is an image from another host.
 */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>AI-Prompt-Shell API</title>
    <link rel="icon" type="image/png" sizes="32x32" href="/swagger-ui/favicon-32x32.png" />
    <link rel="icon" type="image/png" sizes="16x16" href="/swagger-ui/favicon-16x16.png" />
    <link rel="stylesheet" href="/swagger-ui/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/swagger-ui/swagger-ui-bundle.js"></script>
    <script>
      window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', validatorUrl: null })
    </script>
  </body>
</html>`

/**
 * GET /openapi.json, GET /docs and GET /. The document is generated at build
 * time from every route's declaration (functions/openapi.ts) into the static
 * assets, public/openapi.json: answered from there through the ASSETS
 * binding, it costs the bundle nothing, and the request still has its log
 * line, id and CORS headers.
 */
export const docs = new Routes()
  .openapi(documentRoute, async (c) => {
    const { assets } = settingsOf(c)
    if (!assets) throw misconfigured('ASSETS', "is not bound: wrangler.toml's [assets] names it")
    const asset = await assets.fetch(new URL('/openapi.json', c.req.url))
    // Streamed as stored: the route's typing expects a body made by c.json.
    return new Response(asset.body, { headers: { 'content-type': 'application/json; charset=UTF-8' } }) as never
  })
  .openapi(pageRoute, (c) => c.html(PAGE, 200))
  .openapi(rootRoute, (c) => c.redirect('/docs', 302))
