import { defineConfig } from '@playwright/test';

/**
 * The desktop smoke test: the built app in real Electron (`npm run test:desktop`, which checks
 * that Electron's binary and a display are there first: scripts/test-desktop.mjs). It cannot run
 * on machines without Electron's download; test/e2e/README.md says where it does.
 */
export default defineConfig({
  testDir: 'test/e2e/desktop',
  testMatch: '**/*.desktop.ts',
  outputDir: 'test-results/desktop/artifacts',
  workers: 1,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 30_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/desktop/report.json' }]],
});
