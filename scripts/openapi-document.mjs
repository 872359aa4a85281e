// The Worker's OpenAPI document, for scripts/generate.mjs: the app
// (functions/index.ts) is bundled with esbuild for Node and run here, and
// functions/openapi.ts generates the document from its routes. The Worker
// then serves the generated file from its static assets (public/), so
// neither the document nor its generator (lib/http/openapi-document.ts) is
// in its bundle.
import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The file this document is written to: a static asset, which GET /openapi.json answers with. */
export const OPENAPI_DOCUMENT_FILE = 'public/openapi.json'

/** The document as the Worker serves it from OPENAPI_DOCUMENT_FILE, formatted for review. */
export async function openapiDocumentText() {
  const bundled = await build({
    stdin: {
      contents:
        "import app from './functions/index'\n" +
        "import { openapiDocument } from './functions/openapi'\n" +
        'export default openapiDocument(app)\n',
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  })
  const code = bundled.outputFiles[0].text
  const { default: document } = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)
  return JSON.stringify(document, null, 2) + '\n'
}
