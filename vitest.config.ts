import { cloudflareTest } from '@cloudflare/vitest-pool-workers'
import { fileURLToPath } from 'node:url'
import { unstable_readConfig } from 'wrangler'
import { defineConfig } from 'vitest/config'

/**
 * wrangler.toml's [alias] in Vite's terms, so that the Worker under test is
 * made of the modules a deploy bundles (lib/bundle/). Like wrangler's, each
 * replaces an import of exactly its name (`zod`, not `zod/v4`).
 */
function wranglerAliases(configPath: string) {
  const { alias } = unstable_readConfig({ config: configPath })
  return Object.entries<string>(alias ?? {}).map(([name, target]) => ({
    find: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
    replacement: fileURLToPath(new URL(target, import.meta.url)),
  }))
}

/**
 * Three projects: units on Node; the README's `npm run dev` end to end; and
 * the endpoints inside workerd, where the Worker really runs. The workerd project shares one redis-server and one
 * Upstash-protocol bridge (test/support/global-setup.ts); each test file
 * takes its own Redis database from the bridge.
 */
export default defineConfig({
  test: {
    // Under CI a JSON report too, from which .ci/run prints its closing tally.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.ci/report.json' }]] : ['default'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
        },
      },
      {
        plugins: [cloudflareTest({ wrangler: { configPath: './wrangler.toml' } })],
        resolve: { alias: wranglerAliases('./wrangler.toml') },
        test: {
          name: 'workers',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
})
