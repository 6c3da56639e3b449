// `npm run team:demo`: a team gateway on this machine, for a person to try (docs/team.md):
// PostgreSQL (Debian's binaries, in a temp folder), three `atelier serve` instances on it and
// HAProxy in front, all on loopback. Bundles scripts/team-demo/ and runs it; Ctrl+C stops it all.
import { spawnSync } from 'node:child_process';
import { runBundled } from './run-bundled.mjs';

// The instances run the bundled CLI, as `npx atelier` does.
const built = spawnSync(process.execPath, ['scripts/build-node.mjs'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
await runBundled({ entryPoints: { main: 'scripts/team-demo/main.ts' }, outdir: 'out/team-demo' });
