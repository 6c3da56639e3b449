// `npm run soak`: bundles scripts/soak/ (the load, its gateway child and its simulator child) with
// esbuild, then runs it on plain Node. Arguments pass through (`npm run soak -- --requests 500`).
// Not part of `npm test`: it runs for minutes. docs/operations.md shows the last result.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
await build({
  entryPoints: {
    main: 'scripts/soak/main.ts',
    gatewayChild: 'scripts/soak/gatewayChild.ts',
    simulatorChild: 'scripts/soak/simulatorChild.ts',
  },
  outdir: 'out/soak',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  sourcemap: true,
  // Native dependencies (better-sqlite3, sharp) cannot be bundled.
  packages: 'external',
  define: { __ATELIER_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});

const run = spawnSync(
  process.execPath,
  ['--enable-source-maps', 'out/soak/main.mjs', ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
process.exit(run.status ?? 1);
