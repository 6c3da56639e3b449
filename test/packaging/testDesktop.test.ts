import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findElectronBinary } from '../../scripts/start.mjs';
import { desktopTestPlan } from '../../scripts/test-desktop.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('npm run test:desktop', () => {
  it('does not run without Electron’s binary, and says how to get it', () => {
    const plan = desktopTestPlan({
      platform: 'linux',
      env: { DISPLAY: ':0' },
      binary: undefined,
      hasXvfbRun: true,
    });
    expect(plan).toMatchObject({
      run: false,
      why: expect.stringContaining('node_modules/electron/install.js'),
    });
  });

  it('uses xvfb-run on Linux without a display, and refuses when it is missing', () => {
    const binary = '/x/electron';
    expect(desktopTestPlan({ platform: 'linux', env: {}, binary, hasXvfbRun: true })).toEqual({
      run: true,
      wrapper: ['xvfb-run', '--auto-servernum'],
    });
    expect(
      desktopTestPlan({ platform: 'linux', env: {}, binary, hasXvfbRun: false }),
    ).toMatchObject({
      run: false,
      why: expect.stringContaining('no display'),
    });
    expect(desktopTestPlan({ platform: 'darwin', env: {}, binary, hasXvfbRun: false })).toEqual({
      run: true,
      wrapper: [],
    });
  });

  // On machines where Electron cannot be downloaded (these), the real command says so and
  // reports no count at all, which npm test then adds nothing for.
  it.runIf(findElectronBinary(ROOT) === undefined)(
    'here: says why it did not run, counts nothing',
    () => {
      const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/test-desktop.mjs')], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/^desktop: not run: the Electron binary is not installed/m);
      expect(run.stdout).not.toMatch(/passed/);
    },
  );
});
