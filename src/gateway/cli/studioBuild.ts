import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Whether the studio can be served from `dir`, or, if not, what was done about it. */
export type StudioState =
  { kind: 'ready' } | { kind: 'built'; ms: number } | { kind: 'missing'; reason: string };

export interface StudioBuildDeps {
  exists(file: string): boolean;
  /** Runs `node script args` in `cwd`; true when it exits with 0. */
  runNode(script: string, args: string[], cwd: string): boolean;
  /** The electron-vite entry script of the project at `root`, or null when it is not installed. */
  findElectronVite(root: string): string | null;
  now(): number;
}

export const realStudioBuildDeps: StudioBuildDeps = {
  exists: (file) => fs.existsSync(file),
  runNode: (script, args, cwd) =>
    spawnSync(process.execPath, [script, ...args], { cwd, stdio: ['ignore', 'ignore', 'inherit'] })
      .status === 0,
  findElectronVite: (root) => {
    try {
      const require = createRequire(path.join(root, 'package.json'));
      return path.join(
        path.dirname(require.resolve('electron-vite/package.json')),
        'bin',
        'electron-vite.js',
      );
    } catch {
      return null;
    }
  },
  now: () => Date.now(),
};

/**
 * `npm install` builds the studio (the prepare script); this covers a checkout where it was not
 * (`--ignore-scripts`, a cleaned `out/`): the first `atelier serve` builds it from the project's
 * sources, so the login link it prints never leads to a 404. `studioDir` is `<root>/out/renderer`.
 */
export function ensureStudio(
  studioDir: string,
  log: (line: string) => void,
  deps: StudioBuildDeps = realStudioBuildDeps,
): StudioState {
  if (deps.exists(path.join(studioDir, 'index.html'))) return { kind: 'ready' };
  const root = path.resolve(studioDir, '..', '..');
  const sources = path.join(root, 'src', 'renderer', 'index.html');
  const electronVite = deps.exists(sources) ? deps.findElectronVite(root) : null;
  if (!electronVite) {
    return {
      kind: 'missing',
      reason: `the studio is not built (no ${path.join(studioDir, 'index.html')}) and its sources or build tools are not here`,
    };
  }
  log('atelier serve: the studio is not built yet; building it once (electron-vite build)...');
  const started = deps.now();
  if (
    !deps.runNode(electronVite, ['build'], root) ||
    !deps.exists(path.join(studioDir, 'index.html'))
  ) {
    return { kind: 'missing', reason: 'building the studio failed (the messages above say why)' };
  }
  const ms = deps.now() - started;
  log(`atelier serve: built the studio in ${(ms / 1000).toFixed(1)} s`);
  return { kind: 'built', ms };
}
