import type { Parameters } from 'fast-check';

/**
 * Every property runs with a fixed seed and a bounded count in the normal test run, so a failure
 * reproduces; `npm run fuzz` (FUZZ_RUNS, FUZZ_SEED) runs the same properties much longer.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
const SCALE = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : null;

/** `runs` in the normal test run; FUZZ_RUNS times as many (at least `runs`) in a long one. */
export function fuzz<T>(runs: number): Parameters<T> {
  const numRuns = SCALE === null ? runs : Math.max(runs, Math.round(SCALE * (runs / 100)));
  return { seed: SEED, numRuns, endOnFailure: true };
}

/** How long a long run may take per test: FUZZ_RUNS grows the counts, so the timeout grows too. */
export const FUZZ_TIMEOUT_MS = SCALE === null ? 60_000 : 60 * 60_000;
