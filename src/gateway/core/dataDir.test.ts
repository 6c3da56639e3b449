import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath, resolveDataDir } from './dataDir';

describe('resolveDataDir', () => {
  it('prefers the flag, then ATELIER_DATA_DIR, resolved to absolute paths', () => {
    const env = { ATELIER_DATA_DIR: '/srv/atelier', XDG_CONFIG_HOME: '/xdg' };
    expect(resolveDataDir('/tmp/flag', env, 'linux', '/home/ann')).toBe(path.resolve('/tmp/flag'));
    expect(resolveDataDir(undefined, env, 'linux', '/home/ann')).toBe(path.resolve('/srv/atelier'));
    expect(resolveDataDir('rel/dir', {}, 'linux', '/home/ann')).toBe(path.resolve('rel/dir'));
  });

  it("matches Electron's userData on Linux", () => {
    expect(resolveDataDir(undefined, {}, 'linux', '/home/ann')).toBe('/home/ann/.config/Atelier');
    expect(
      resolveDataDir(undefined, { XDG_CONFIG_HOME: '/home/ann/cfg' }, 'linux', '/home/ann'),
    ).toBe('/home/ann/cfg/Atelier');
    expect(resolveDataDir(undefined, { XDG_CONFIG_HOME: '' }, 'linux', '/home/ann')).toBe(
      '/home/ann/.config/Atelier',
    );
    expect(resolveDataDir(undefined, {}, 'freebsd', '/home/ann')).toBe('/home/ann/.config/Atelier');
  });

  it("matches Electron's userData on macOS, ignoring XDG", () => {
    expect(resolveDataDir(undefined, { XDG_CONFIG_HOME: '/xdg' }, 'darwin', '/Users/ann')).toBe(
      '/Users/ann/Library/Application Support/Atelier',
    );
  });

  it("matches Electron's userData on Windows", () => {
    expect(
      resolveDataDir(
        undefined,
        { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' },
        'win32',
        'C:\\Users\\ann',
      ),
    ).toBe('C:\\Users\\ann\\AppData\\Roaming\\Atelier');
    expect(resolveDataDir(undefined, {}, 'win32', 'C:\\Users\\ann')).toBe(
      'C:\\Users\\ann\\AppData\\Roaming\\Atelier',
    );
  });

  it('puts the database in the data dir', () => {
    expect(databasePath('/data')).toBe(path.join('/data', 'atelier.db'));
  });
});
