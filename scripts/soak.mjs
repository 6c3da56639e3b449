// `npm run soak`: bundles scripts/soak/ (the load, its gateway child and its simulator child) and
// runs it on plain Node. Arguments pass through (`npm run soak -- --requests 500`).
// Not part of `npm test`: it runs for minutes. docs/operations.md shows the last result.
import { runBundled } from './run-bundled.mjs';

await runBundled({
  entryPoints: {
    main: 'scripts/soak/main.ts',
    gatewayChild: 'scripts/soak/gatewayChild.ts',
    simulatorChild: 'scripts/soak/simulatorChild.ts',
  },
  outdir: 'out/soak',
});
