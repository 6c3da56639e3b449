import os from 'node:os';
import path from 'node:path';

/** Electron derives userData from `productName`; the gateway must land in the same folder. */
const PRODUCT_NAME = 'Atelier';
const DATABASE_FILE = 'atelier.db';

/**
 * Where Atelier keeps its database and files: `--data-dir`, else `ATELIER_DATA_DIR`, else the folder
 * Electron's `app.getPath('userData')` returns. The CLI (`atelier serve`, `atelier keys`) and the
 * desktop app then share one database without any configuration.
 *
 * `platform` and `home` are parameters so every platform's rule can be tested on any machine; the
 * platform's own path flavour (posix or win32) is used to join, for the same reason.
 */
export function resolveDataDir(
  flag?: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  if (flag) return path.resolve(flag);
  if (env.ATELIER_DATA_DIR) return path.resolve(env.ATELIER_DATA_DIR);
  const flavour = platform === 'win32' ? path.win32 : path.posix;
  return flavour.join(appDataDir(env, platform, home), PRODUCT_NAME);
}

/** Electron's `app.getPath('appData')`. */
function appDataDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform, home: string): string {
  switch (platform) {
    case 'win32':
      // Electron asks the shell for FOLDERID_RoamingAppData, which is what %APPDATA% holds.
      return env.APPDATA || path.win32.join(home, 'AppData', 'Roaming');
    case 'darwin':
      return path.posix.join(home, 'Library', 'Application Support');
    default:
      // Chromium uses XDG_CONFIG_HOME when it is set and non-empty, on Linux and the BSDs alike.
      return env.XDG_CONFIG_HOME || path.posix.join(home, '.config');
  }
}

export function databasePath(dataDir: string): string {
  return path.join(dataDir, DATABASE_FILE);
}
