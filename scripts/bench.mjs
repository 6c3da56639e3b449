// `npm run bench`: bundles bench/ (the harness and its gateway, simulator and reference-proxy
// children) and runs the harness on plain Node. Arguments pass through (`npm run bench -- --quick`).
import { runBundled } from './run-bundled.mjs';

await runBundled({
  entryPoints: {
    main: 'bench/main.ts',
    gatewayChild: 'bench/gatewayChild.ts',
    simulatorChild: 'bench/simulatorChild.ts',
    proxyChild: 'bench/proxyChild.ts',
    baselineSetupChild: 'bench/baselineSetupChild.ts',
  },
  outdir: 'out/bench',
});
