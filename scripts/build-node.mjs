// Bundles the CLI (gateway + simulator) for plain Node with esbuild. Dependencies stay external:
// they are installed in node_modules, and native ones (better-sqlite3, sharp) cannot be bundled.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const started = Date.now();
await build({
  entryPoints: { cli: 'src/gateway/cli/main.ts' },
  outdir: 'out/node',
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
console.log(`built out/node/cli.mjs in ${Date.now() - started} ms`);
