import { percentile } from './stats';

/**
 * The order of the ways in one round: the list turns by one every second round and every other
 * round runs backwards (ABBA over the rounds), so each way is first, last and in between as often
 * as the others and slow drift (a warming JIT, a busy neighbour) falls on all of them alike.
 */
export function roundOrder<T>(ways: readonly T[], round: number): T[] {
  if (ways.length === 0) return [];
  const turn = Math.floor(round / 2) % ways.length;
  const order = [...ways.slice(turn), ...ways.slice(0, turn)];
  if (round % 2 === 1) order.reverse();
  return order;
}

/** One way's figures over several rounds: the median of each round and their spread. */
export interface RoundSummary {
  rounds: number;
  /** Each round's median (ms or req/s), in the order the rounds ran. */
  roundMedians: number[];
  /** The median of the rounds' medians: the figure the verdict uses. */
  median: number;
  min: number;
  max: number;
  /** Interquartile range of the rounds' medians. */
  iqr: number;
}

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** Summarises samples grouped by round (one array per round; empty rounds are left out). */
export function summariseRounds(byRound: ReadonlyArray<readonly number[]>): RoundSummary {
  const roundMedians = byRound.filter((r) => r.length > 0).map(median);
  const sorted = [...roundMedians].sort((a, b) => a - b);
  return {
    rounds: roundMedians.length,
    roundMedians,
    median: percentile(sorted, 50),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    iqr: percentile(sorted, 75) - percentile(sorted, 25),
  };
}

/** Splits samples recorded in blocks (`block` per round, rounds one after another) by round. */
export function splitRounds(samples: readonly number[], block: number): number[][] {
  if (!Number.isInteger(block) || block < 1)
    throw new RangeError('block must be a positive integer');
  const rounds: number[][] = [];
  for (let i = 0; i < samples.length; i += block) rounds.push(samples.slice(i, i + block));
  return rounds;
}

/**
 * The added time of a way over direct, round by round (each round's median minus direct's median
 * in the same round), summarised: the spread says how far noise moved the added figure.
 */
export function addedByRound(
  way: ReadonlyArray<readonly number[]>,
  direct: ReadonlyArray<readonly number[]>,
): RoundSummary {
  const n = Math.min(way.length, direct.length);
  const added: number[][] = [];
  for (let i = 0; i < n; i += 1) {
    if (way[i]!.length === 0 || direct[i]!.length === 0) continue;
    added.push([median(way[i]!) - median(direct[i]!)]);
  }
  return summariseRounds(added);
}

/** A way's rate against a reference's, round by round (ratio of the rounds' medians), summarised. */
export function ratioByRound(
  way: ReadonlyArray<readonly number[]>,
  reference: ReadonlyArray<readonly number[]>,
): RoundSummary {
  const n = Math.min(way.length, reference.length);
  const ratios: number[][] = [];
  for (let i = 0; i < n; i += 1) {
    if (way[i]!.length === 0 || reference[i]!.length === 0) continue;
    ratios.push([median(way[i]!) / median(reference[i]!)]);
  }
  return summariseRounds(ratios);
}
