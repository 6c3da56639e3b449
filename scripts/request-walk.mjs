// `npm run walk`: bundles scripts/walk/requestWalk.ts and runs it on plain Node with source maps,
// so the coverage it takes maps back to the gateway's source files (docs/architecture.md, "A
// generation's path").
import { runBundled } from './run-bundled.mjs';

await runBundled({ entryPoints: { main: 'scripts/walk/requestWalk.ts' }, outdir: 'out/walk' });
