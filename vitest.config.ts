import { cloudflareTest } from '@cloudflare/vitest-pool-workers'
import { defineConfig } from 'vitest/config'

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
        plugins: [
          cloudflareTest({
            wrangler: { configPath: './wrangler.toml' },
            // The queue consumer runs with the Worker's own env, not a test's: it signs with this secret,
            // test/support/webhook-receiver.ts's WEBHOOK_TEST_SECRET (an import from there would load node:http here).
            miniflare: { bindings: { WEBHOOK_SECRET: 'webhook-test-secret' } },
          }),
        ],
        test: {
          name: 'workers',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
})
