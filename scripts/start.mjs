// `npm start`: build, then open the desktop app where Electron can run, or else serve the same
// studio headless on the gateway (a server, a container, CI) and print its URL.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The Electron executable, found the way node_modules/electron/index.js finds it but without
 * loading that module: it downloads the binary when it is missing, and `npm start` must not.
 * @returns {string | undefined}
 */
export function findElectronBinary(
  root,
  env = process.env,
  exists = existsSync,
  read = readFileSync,
) {
  const dir = join(root, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  const relative = exists(pathFile) ? read(pathFile, 'utf8').trim() : undefined;
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const binary = join(env.ELECTRON_OVERRIDE_DIST_PATH, relative || 'electron');
    return exists(binary) ? binary : undefined;
  }
  if (!relative) return undefined;
  const binary = join(dir, 'dist', relative);
  return exists(binary) ? binary : undefined;
}

/**
 * Whether the desktop window can open, and if not, every reason why.
 * @param {{ platform: string, env: Record<string, string | undefined>, uid?: number, binary?: string }} where
 * @returns {{ desktop: true, binary: string } | { desktop: false, reasons: string[] }}
 */
export function decideLaunch({ platform, env, uid, binary }) {
  const reasons = [];
  if (env.ATELIER_HEADLESS === '1') reasons.push('ATELIER_HEADLESS=1 is set');
  const needsDisplay = platform !== 'win32' && platform !== 'darwin';
  if (needsDisplay && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    reasons.push('there is no display (DISPLAY and WAYLAND_DISPLAY are unset)');
  }
  if (platform === 'linux' && uid === 0) {
    reasons.push('it runs as root, where Chromium will not start with its sandbox on');
  }
  if (!binary) reasons.push('the Electron binary is not installed (node_modules/electron/dist)');
  return reasons.length === 0 && binary ? { desktop: true, binary } : { desktop: false, reasons };
}

function runStep(label, args) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`atelier start: ${label} failed`);
    process.exit(result.status ?? 1);
  }
}

/** Runs the app as a child: signals are passed on once, and its exit becomes ours. */
function launch(command, args, env) {
  // Its own process group on POSIX, so a terminal Ctrl+C reaches it once (from us), not twice.
  const child = spawn(command, args, {
    cwd: ROOT,
    env,
    stdio: 'inherit',
    detached: process.platform !== 'win32',
  });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const signal of signals) process.on(signal, forward);
  process.on('exit', () => forward('SIGTERM'));
  child.on('error', (error) => {
    console.error(`atelier start: could not run ${command}: ${error.message}`);
    process.exit(1);
  });
  child.on('close', (code, signal) => {
    if (signal) {
      for (const s of signals) process.removeListener(s, forward);
      process.exitCode = 128 + (constants.signals[signal] ?? 0);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

async function main() {
  // Before any build: an old Node would get as far as a native module and crash there. `npm start`
  // finds the project's own Node first; `node scripts/start.mjs` on an old one runs again on it.
  const { announceNode, runOnNewEnoughNode } = await import('./check-node.mjs');
  if (!runOnNewEnoughNode('atelier start', fileURLToPath(import.meta.url), process.argv.slice(2))) {
    return;
  }
  announceNode('atelier start');
  const extraArgs = process.argv.slice(2);
  const electronVite = join(
    dirname(createRequire(import.meta.url).resolve('electron-vite/package.json')),
    'bin',
    'electron-vite.js',
  );
  runStep('electron-vite build', [electronVite, 'build']);
  runStep('scripts/build-node.mjs', [join(ROOT, 'scripts', 'build-node.mjs')]);

  const decision = decideLaunch({
    platform: process.platform,
    env: process.env,
    uid: process.getuid?.(),
    binary: findElectronBinary(ROOT),
  });
  if (decision.desktop) {
    const env = { ...process.env };
    delete env.ELECTRON_RUN_AS_NODE;
    launch(decision.binary, ['.', ...extraArgs], env);
    return;
  }
  console.log(
    `Atelier: the desktop window cannot open here because ${decision.reasons.join('; ')}; ` +
      'starting the headless web studio instead.',
  );
  launch(process.execPath, [join(ROOT, 'bin', 'atelier.mjs'), 'serve', ...extraArgs], process.env);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  await main();
}
