// `npm run bench:storage`: the storage port's cost per call on SQLite (bench/storage/main.ts).
import { runBundled } from './run-bundled.mjs';

await runBundled({ entryPoints: { main: 'bench/storage/main.ts' }, outdir: 'out/bench-storage' });
