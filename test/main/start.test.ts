import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface StartScript {
  findElectronBinary(
    root: string,
    env: Record<string, string | undefined>,
    exists: (path: string) => boolean,
    read: (path: string) => string,
  ): string | undefined;
  decideLaunch(where: {
    platform: string;
    env: Record<string, string | undefined>;
    uid?: number;
    binary?: string;
  }): { desktop: true; binary: string } | { desktop: false; reasons: string[] };
}

// scripts/start.mjs is plain JavaScript; importing it runs nothing (main() is guarded).
const scriptPath = join(import.meta.dirname, '../../scripts/start.mjs');
const { findElectronBinary, decideLaunch } = (await import(scriptPath)) as StartScript;

describe('findElectronBinary', () => {
  const root = '/repo';
  const electronDir = join(root, 'node_modules', 'electron');
  const read = () => 'electron\n';

  it('finds the binary named by path.txt in dist', () => {
    const present = new Set([join(electronDir, 'path.txt'), join(electronDir, 'dist', 'electron')]);
    expect(findElectronBinary(root, {}, (p) => present.has(p), read)).toBe(
      join(electronDir, 'dist', 'electron'),
    );
  });

  it('reports none when the download never happened', () => {
    expect(findElectronBinary(root, {}, () => false, read)).toBeUndefined();
    const onlyPathFile = (p: string) => p === join(electronDir, 'path.txt');
    expect(findElectronBinary(root, {}, onlyPathFile, read)).toBeUndefined();
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH', () => {
    const env = { ELECTRON_OVERRIDE_DIST_PATH: '/opt/electron' };
    const exists = (p: string) => p === join('/opt/electron', 'electron');
    expect(findElectronBinary(root, env, exists, read)).toBe(join('/opt/electron', 'electron'));
  });
});

describe('decideLaunch', () => {
  const binary = '/repo/node_modules/electron/dist/electron';

  it('opens the desktop app on Linux with a display and the binary', () => {
    expect(decideLaunch({ platform: 'linux', env: { DISPLAY: ':0' }, uid: 1000, binary })).toEqual({
      desktop: true,
      binary,
    });
    expect(
      decideLaunch({ platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0' }, uid: 1000, binary })
        .desktop,
    ).toBe(true);
  });

  it('needs no display variable on macOS or Windows', () => {
    expect(decideLaunch({ platform: 'darwin', env: {}, uid: 501, binary }).desktop).toBe(true);
    expect(decideLaunch({ platform: 'win32', env: {}, binary }).desktop).toBe(true);
  });

  it('serves headless, with every reason, when Electron cannot start', () => {
    expect(decideLaunch({ platform: 'linux', env: {}, uid: 0 })).toEqual({
      desktop: false,
      reasons: [
        'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)',
        'it runs as root, where Chromium will not start with its sandbox on',
        'the Electron binary is not installed (node_modules/electron/dist)',
      ],
    });
  });

  it('serves headless when asked to', () => {
    const decision = decideLaunch({
      platform: 'darwin',
      env: { ATELIER_HEADLESS: '1' },
      binary,
    });
    expect(decision).toEqual({ desktop: false, reasons: ['ATELIER_HEADLESS=1 is set'] });
  });
});
