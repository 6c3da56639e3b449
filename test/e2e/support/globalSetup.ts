import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/**
 * Builds what `atelier serve` serves, once per run: the studio (out/renderer, by electron-vite)
 * and the bundled CLI (out/node). `ATELIER_E2E_SKIP_BUILD=1` reuses the last build while
 * iterating on tests alone.
 */
export default function globalSetup(): void {
  const results = path.join(ROOT, 'test-results/e2e');
  fs.rmSync(path.join(results, 'metrics.json'), { force: true });
  fs.mkdirSync(results, { recursive: true });
  if (process.env.ATELIER_E2E_SKIP_BUILD === '1') return;
  const run = (args: string[]) =>
    execFileSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  run([
    path.join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js'),
    'build',
    '--logLevel',
    'warn',
  ]);
  run(['scripts/build-node.mjs']);
}
