// `npm run bench:spool`: the gallery spool's CPU per 4K image, beside a baseline's (bench/spool/).
import { runBundled } from './run-bundled.mjs';

await runBundled({
  entryPoints: { main: 'bench/spool/main.ts', child: 'bench/spool/child.ts' },
  outdir: 'out/bench-spool',
});
