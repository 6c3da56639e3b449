import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    globalSetup: ['test/support/globalSetup.ts'],
    // Replies of the gateways under test are checked against /v1/openapi.json (openapiReplies.ts).
    setupFiles: ['test/support/checkReplies.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: run files in parallel but keep each suite's servers to itself.
    pool: 'forks',
    maxWorkers: 2,
  },
});
