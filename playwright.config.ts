import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests of the studio in Debian's Chromium against `atelier serve` and its built-in
 * simulator (test/e2e/README.md). One worker: each file starts its own server and browser, and the
 * benchmark's frame times must not share two cores with another file.
 */
export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './test/e2e/support/globalSetup.ts',
  outputDir: 'test-results/e2e/artifacts',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Bounds on waiting, not measurements: every wait is for a signal (a status, a count), and the
  // bound only says when to give up. A loaded 2-core machine (CI beside other work, load average
  // above 20) took more than 10 s to run one edit through the studio; 20 s and 90 s keep a
  // broken page failing within a test's minute and a half.
  timeout: 90_000,
  expect: { timeout: 20_000 },
  // A locator that never appears fails the step, not the whole test's minute.
  use: { actionTimeout: 15_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/e2e/report.json' }]],
});
