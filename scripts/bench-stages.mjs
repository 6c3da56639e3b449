// `npm run bench:stages`: the gateway's CPU per small request, stage by stage (bench/stages/).
import { runBundled } from './run-bundled.mjs';

await runBundled({
  entryPoints: {
    main: 'bench/stages/main.ts',
    gateway: 'bench/stages/gatewayChild.ts',
    simulator: 'bench/stages/simulatorChild.ts',
  },
  outdir: 'out/bench-stages',
});
