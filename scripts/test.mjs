// `npm test`: every suite, then one summary line `N passed, N failed` over all of them.
// Static checks count as one test each; vitest reports its own counts (JSON reporter).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

const results = { passed: 0, failed: 0 };
const failures = [];

function run(label, command, args) {
  console.log(`\n=== ${label}: ${command} ${args.join(' ')}`);
  const started = Date.now();
  const res = spawnSync(command, args, { stdio: 'inherit', env: process.env });
  console.log(
    `=== ${label}: ${res.status === 0 ? 'ok' : `FAILED (exit ${res.status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return res.status === 0;
}

function check(label, command, args) {
  if (run(label, command, args)) results.passed += 1;
  else {
    results.failed += 1;
    failures.push(label);
  }
}

function countedSuite(label, command, args, reportFile, read) {
  rmSync(reportFile, { force: true });
  const ok = run(label, command, args);
  if (!existsSync(reportFile)) {
    // The runner died before reporting: count the whole suite as one failure rather than zero.
    results.failed += 1;
    failures.push(`${label} (no report)`);
    return;
  }
  const { passed, failed } = read(JSON.parse(readFileSync(reportFile, 'utf8')));
  results.passed += passed;
  results.failed += failed;
  if (failed > 0 || !ok) failures.push(label);
  if (!ok && failed === 0) {
    results.failed += 1; // exit code says failure (e.g. an error outside a test)
  }
}

mkdirSync('test-results', { recursive: true });
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

check('typecheck', npx, ['tsc', '-p', 'tsconfig.node.json', '--noEmit']);
check('typecheck (web)', npx, ['tsc', '-p', 'tsconfig.web.json', '--noEmit']);
check('typecheck (e2e)', npx, ['tsc', '-p', 'test/e2e/tsconfig.json', '--noEmit']);
check('lint', npx, ['eslint', '.', '--max-warnings', '0']);
check('unused exports (knip budget)', process.execPath, ['scripts/knip-budget.mjs']);
check('format', npx, ['prettier', '--check', '.', '--log-level', 'warn']);
// Keychain tests talk to a real Secret Service: on Linux, a private gnome-keyring on a bus of its
// own (scripts/with-keyring.sh). Without the tools they cannot pass; in CI that is a failure itself.
const keyringTools = ['dbus-run-session', 'gdbus', 'gnome-keyring-daemon'];
const hasCommand = (name) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
const missingKeyringTools =
  process.platform === 'linux' ? keyringTools.filter((name) => !hasCommand(name)) : [];
const withKeyring = process.platform === 'linux' && missingKeyringTools.length === 0;
if (missingKeyringTools.length > 0) {
  console.log(
    `\nnotice: ${missingKeyringTools.join(', ')} not installed: the keychain tests will fail unless ` +
      'a Secret Service is already running (install dbus-daemon, libglib2.0-bin and gnome-keyring, ' +
      'as .ci/run does)',
  );
  if (process.env.CI === 'true') {
    results.failed += 1;
    failures.push('keychain tools');
  }
}

countedSuite(
  'unit and gateway tests',
  withKeyring ? 'bash' : npx,
  [
    ...(withKeyring ? ['scripts/with-keyring.sh', npx] : []),
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    '--outputFile.json=test-results/vitest.json',
  ],
  'test-results/vitest.json',
  (report) => ({ passed: report.numPassedTests, failed: report.numFailedTests }),
);

// End-to-end: the built studio in Debian's Chromium against `atelier serve` and its simulator
// (playwright.config.ts, test/e2e/README.md). Playwright's JSON report holds the counts.
if (!existsSync(process.env.ATELIER_E2E_CHROMIUM ?? '/usr/bin/chromium')) {
  console.log(
    '\nnotice: Chromium is not installed at /usr/bin/chromium: the end-to-end tests will fail ' +
      '(apt-get install chromium, as .ci/run does)',
  );
}
countedSuite(
  'end-to-end tests (Chromium)',
  npx,
  ['playwright', 'test'],
  'test-results/e2e/report.json',
  (report) => ({
    passed: report.stats.expected + report.stats.flaky,
    failed: report.stats.unexpected,
  }),
);

// The desktop app in real Electron (test/e2e/desktop): only where Electron's binary exists. Where
// it does not, the script says why and nothing is counted, never a pass.
{
  console.log('\n=== desktop tests (Electron): node scripts/test-desktop.mjs');
  const desktop = spawnSync(process.execPath, ['scripts/test-desktop.mjs'], {
    encoding: 'utf8',
    env: { ...process.env, ATELIER_E2E_SKIP_BUILD: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.stdout.write(desktop.stdout);
  const counted = /^desktop: (\d+) passed, (\d+) failed/m.exec(desktop.stdout);
  if (counted) {
    results.passed += Number(counted[1]);
    results.failed += Number(counted[2]);
    if (Number(counted[2]) > 0) failures.push('desktop tests');
  } else if (!/^desktop: not run: /m.test(desktop.stdout) || desktop.status !== 0) {
    results.failed += 1;
    failures.push('desktop tests (no result)');
  }
}

if (failures.length > 0) console.log(`\nfailed suites: ${failures.join(', ')}`);
console.log(`${results.passed} passed, ${results.failed} failed`);
process.exit(results.failed > 0 ? 1 : 0);
