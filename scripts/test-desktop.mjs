// `npm run test:desktop`: the desktop smoke test (test/e2e/desktop) in real Electron, where it can
// run. Where it cannot (no Electron binary: its download needs the network; no display and no
// xvfb-run), it says why and counts nothing: a test that did not run is never a pass.
//
// Prints `desktop: N passed, N failed` or `desktop: not run: <why>`; exits non-zero only on failure.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findElectronBinary } from './start.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = join(ROOT, 'test-results/desktop/report.json');

/** Why the desktop test cannot run here, or null when it can (with how to get a display). */
export function desktopTestPlan({ platform, env, binary, hasXvfbRun }) {
  if (!binary) {
    return {
      run: false,
      why:
        'the Electron binary is not installed (node_modules/electron/dist). It is downloaded by ' +
        "electron's install script, which needs the network: run `node node_modules/electron/install.js` " +
        'on a networked machine, then npm run test:desktop',
    };
  }
  const needsDisplay = platform === 'linux';
  if (needsDisplay && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    if (hasXvfbRun) return { run: true, wrapper: ['xvfb-run', '--auto-servernum'] };
    return {
      run: false,
      why: 'there is no display (DISPLAY and WAYLAND_DISPLAY are unset) and xvfb-run is not installed (apt-get install xvfb)',
    };
  }
  return { run: true, wrapper: [] };
}

function main() {
  const plan = desktopTestPlan({
    platform: process.platform,
    env: process.env,
    binary: findElectronBinary(ROOT),
    hasXvfbRun: spawnSync('sh', ['-c', 'command -v xvfb-run']).status === 0,
  });
  if (!plan.run) {
    console.log(`desktop: not run: ${plan.why}`);
    return 0;
  }
  if (process.env.ATELIER_E2E_SKIP_BUILD !== '1') {
    const vite = join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js');
    const built = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (built.status !== 0) return 1;
  }
  rmSync(REPORT, { force: true });
  const playwright = join(ROOT, 'node_modules/@playwright/test/cli.js');
  const command = [
    ...plan.wrapper,
    process.execPath,
    playwright,
    'test',
    '-c',
    'playwright.desktop.config.ts',
  ];
  const res = spawnSync(command[0], command.slice(1), {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, ATELIER_ELECTRON_BINARY: findElectronBinary(ROOT) },
  });
  if (!existsSync(REPORT)) {
    console.log('desktop: 0 passed, 1 failed (no report)');
    return 1;
  }
  const { stats } = JSON.parse(readFileSync(REPORT, 'utf8'));
  const passed = stats.expected + stats.flaky;
  const failed = stats.unexpected;
  if (passed + failed === 0) {
    console.log('desktop: not run: no desktop test executed');
    return res.status ?? 1;
  }
  console.log(`desktop: ${passed} passed, ${failed} failed`);
  return failed > 0 || res.status !== 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main();
}
