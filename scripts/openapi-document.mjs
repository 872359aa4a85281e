// The Worker's OpenAPI document, for scripts/generate.mjs: the app
// (functions/index.ts) is bundled with esbuild for Node and run here, and
// functions/openapi.ts generates the document from its routes. The Worker
// then serves the generated file, and zod-to-openapi's generator stays out of
// its bundle (wrangler.toml's [alias], lib/bundle/zod-to-openapi.js).
import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The file this document is written to; the app imports it, but the document cannot depend on itself. */
export const OPENAPI_DOCUMENT_FILE = 'functions/openapi.generated.json'

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
    plugins: [withoutServedDocument],
  })
  const code = bundled.outputFiles[0].text
  const { default: document } = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)
  return JSON.stringify(document, null, 2) + '\n'
}

/** Reads the document the app serves as `{}`: generation must not depend on the last output (or on its existing). */
const withoutServedDocument = {
  name: 'without-served-document',
  setup(build) {
    build.onResolve({ filter: /\/openapi\.generated\.json$/ }, () => ({
      path: OPENAPI_DOCUMENT_FILE,
      namespace: 'served',
    }))
    build.onLoad({ filter: /.*/, namespace: 'served' }, () => ({ contents: '{}', loader: 'json' }))
  },
}
