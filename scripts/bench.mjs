// `npm run bench`: bundles bench/ (the harness and its gateway, simulator and reference-proxy children) with
// esbuild, then runs the harness on plain Node. Arguments pass through (`npm run bench -- --quick`).
// Dependencies stay external, as in build-node.mjs: native ones (better-sqlite3, sharp) cannot be
// bundled.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
await build({
  entryPoints: {
    main: 'bench/main.ts',
    gatewayChild: 'bench/gatewayChild.ts',
    simulatorChild: 'bench/simulatorChild.ts',
    proxyChild: 'bench/proxyChild.ts',
  },
  outdir: 'out/bench',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  packages: 'external',
  define: { __ATELIER_VERSION__: JSON.stringify(pkg.version) },
  logLevel: 'warning',
});

const run = spawnSync(
  process.execPath,
  ['--enable-source-maps', 'out/bench/main.mjs', ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
process.exit(run.status ?? 1);
