#!/usr/bin/env node
// The long fuzz run: the property suites of test/fuzz with their counts scaled up.
// FUZZ_RUNS=N makes a property that runs 100 times in `npm test` run N times (others in
// proportion); the default here is 50x. FUZZ_SEED picks another seed than the fixed one.
import { spawnSync } from 'node:child_process';

const env = { ...process.env, FUZZ_RUNS: process.env.FUZZ_RUNS ?? '5000' };
console.log(`fuzz: FUZZ_RUNS=${env.FUZZ_RUNS} FUZZ_SEED=${env.FUZZ_SEED ?? '(fixed)'}`);
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const run = spawnSync(npx, ['vitest', 'run', 'test/fuzz', ...process.argv.slice(2)], {
  env,
  stdio: 'inherit',
  shell: process.platform === 'win32',
});
process.exit(run.status ?? 1);
