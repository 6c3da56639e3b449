// Bundles a TypeScript harness and its child processes with esbuild, then runs its `main` on plain
// Node with the arguments passed through: how `npm run bench` and `npm run soak` start. Dependencies
// stay external, as in build-node.mjs: native ones (better-sqlite3, sharp) cannot be bundled.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

/**
 * @param {{ entryPoints: Record<string, string>, outdir: string }} harness `entryPoints.main`
 *   is the one run; the others are the children it forks from `outdir`.
 */
export async function runBundled({ entryPoints, outdir }) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  await build({
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: true,
    packages: 'external',
    define: { __ATELIER_VERSION__: JSON.stringify(pkg.version) },
    logLevel: 'warning',
  });
  const run = spawnSync(
    process.execPath,
    ['--enable-source-maps', `${outdir}/main.mjs`, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(run.status ?? 1);
}
