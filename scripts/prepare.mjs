// `npm install` (the prepare script): says which Node the project runs on, then builds what
// `npx atelier serve` serves: the studio (out/renderer, with the Electron app's out/main and
// out/preload, one electron-vite build of a few seconds) and the CLI bundle (out/node).
// Without the dev dependencies (`npm install --omit=dev`) only the CLI is built.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { announceNode, PROJECT_ROOT } from './check-node.mjs';

announceNode('atelier install');

function runNode(label, args) {
  const result = spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`atelier install: ${label} failed`);
    process.exit(result.status ?? 1);
  }
}

let electronVite = null;
try {
  const require = createRequire(join(PROJECT_ROOT, 'package.json'));
  electronVite = join(
    dirname(require.resolve('electron-vite/package.json')),
    'bin',
    'electron-vite.js',
  );
} catch {
  console.error(
    'atelier install: electron-vite is not installed (no dev dependencies): the studio is not built',
  );
}
if (electronVite) {
  const started = Date.now();
  runNode('building the studio (electron-vite build)', [
    electronVite,
    'build',
    '--logLevel',
    'warn',
  ]);
  console.error(
    `atelier install: built the studio in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}
runNode('building the CLI', [join(PROJECT_ROOT, 'scripts', 'build-node.mjs')]);
