import { centre, judgeAtMost, ratioInterval } from './interval';
import type { Row } from './report';
import { ratioByRound, type RoundSummary } from './rounds';
import { distribution } from './stats';

/** Issue 24: every case within 1.05x of the tree before the change. */
export const BASELINE_RATIO = 1.05;
/** The before/after interval's coverage: each side wrong at most 5 % of the time. */
export const BASELINE_CONFIDENCE = 0.9;

/**
 * How much slower the installed gateway is than the baseline, round by round (each round's
 * median against the baseline's median in the same round), summarised: installed / baseline for
 * times, baseline / installed for rates, so above 1 is slower either way.
 */
export function slowdownByRound(
  installed: ReadonlyArray<readonly number[]>,
  baseline: ReadonlyArray<readonly number[]>,
  unit: 'ms' | 'req/s',
): RoundSummary {
  return unit === 'ms' ? ratioByRound(installed, baseline) : ratioByRound(baseline, installed);
}

/**
 * The slowdown of each `size` consecutive rounds (one pair of gateway children under --pairs):
 * the Hodges-Lehmann estimate of their slowdowns, on the logarithms.
 */
export function slowdownBySegment(roundSlowdowns: readonly number[], size: number): number[] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('size must be a whole number');
  const out: number[] = [];
  for (let i = 0; i < roundSlowdowns.length; i += size)
    out.push(Math.exp(centre(roundSlowdowns.slice(i, i + size).map((r) => Math.log(r)))));
  return out;
}

/**
 * The row that compares a case's installed way with the baseline's: the Direct column holds the
 * baseline, Through the installed gateway. Ratio is the Hodges-Lehmann estimate of the rounds'
 * slowdowns and the spread its 90 % interval (interval.ts); the outcome comes from where that
 * interval lies: within 1.05x (pass), above it (FAIL), or across it (undecided: more rounds,
 * `--pairs`). Under 5 rounds there is no interval: the median of the rounds and their min .. max,
 * undecided. No rounds (a way that never ran): no verdict. With `pairRounds` (--pairs) the
 * rounds came from several pairs of gateway children, that many rounds each: one child differs
 * from another of the same code by more than one call does from the next (docs/benchmarks.md),
 * so the interval is over the pairs' slowdowns, not over the rounds.
 */
export function baselineRow(fields: {
  id: string;
  label: string;
  unit: 'ms' | 'req/s';
  installed: ReadonlyArray<readonly number[]>;
  baseline: ReadonlyArray<readonly number[]>;
  /** The baseline's commit, for the reader of the JSON. */
  commit: string;
  /** Under --pairs: the rounds each pair of gateway children ran, in order. */
  pairRounds?: number;
}): Row {
  const s = slowdownByRound(fields.installed, fields.baseline, fields.unit);
  const pairs = fields.pairRounds ? slowdownBySegment(s.roundMedians, fields.pairRounds) : null;
  const interval = ratioInterval(pairs ?? s.roundMedians, BASELINE_CONFIDENCE);
  const units = pairs ? `${pairs.length} pairs` : `${s.rounds} rounds`;
  const judgement = judgeAtMost(interval, BASELINE_RATIO);
  const base = distribution(fields.baseline.flat());
  const mine = distribution(fields.installed.flat());
  const undecided =
    s.rounds === 0 || judgement !== 'undecided'
      ? undefined
      : interval
        ? `its ${pct(interval.confidence)} interval ${interval.low.toFixed(2)}x .. ` +
          `${interval.high.toFixed(2)}x spans ${BASELINE_RATIO}x: more ` +
          (pairs ? 'pairs' : 'rounds (--pairs)')
        : `${units} are too few for an interval (5 at least)`;
  return {
    id: `${fields.id}.baseline`,
    label: `${fields.label}: as installed / baseline`,
    unit: fields.unit,
    direct: base,
    through: mine,
    addedMs: fields.unit === 'ms' ? mine.p50 - base.p50 : null,
    ratio: interval ? interval.estimate : s.median,
    spread: interval
      ? {
          min: interval.low,
          max: interval.high,
          rounds: s.rounds,
          unit: 'x',
          interval: true,
          ...(pairs && { pairs: pairs.length }),
        }
      : { min: s.min, max: s.max, rounds: s.rounds, unit: 'x' },
    target: `<= ${BASELINE_RATIO}x the baseline's ${fields.unit === 'ms' ? 'time' : '1 / rate'}`,
    pass: judgement === 'within' ? true : judgement === 'over' ? false : null,
    ...(undecided !== undefined && { undecided }),
    details: {
      baselineCommit: fields.commit,
      slowdown: fields.unit === 'ms' ? 'installed / baseline time' : 'baseline / installed rate',
      roundSlowdowns: s.roundMedians,
      ...(pairs && { pairSlowdowns: pairs, pairRounds: fields.pairRounds }),
      roundsMedian: s.median,
      roundsMin: s.min,
      roundsMax: s.max,
      interval,
      judgement: s.rounds === 0 ? null : judgement,
    },
  };
}

const pct = (p: number) => `${Math.floor(p * 100)} %`;

/**
 * One line for issue 24's question over a run's `.baseline` rows: how many cases this run puts
 * within 1.05x, over it, or leaves undecided, and the slowest. The verdict is still per row, from
 * two agreeing runs.
 */
export function baselineSummary(rows: readonly Row[], commit: string): string {
  const compared = rows.filter((r) => r.id.endsWith('.baseline') && r.ratio !== null);
  if (compared.length === 0) return `installed / baseline ${commit}: no case compared`;
  const within = compared.filter((r) => r.pass === true).length;
  const over = compared.filter((r) => r.pass === false).length;
  const slowest = compared.reduce((a, b) => ((b.ratio ?? 0) > (a.ratio ?? 0) ? b : a));
  return (
    `installed / baseline ${commit}: of ${compared.length} cases, ${within} within ` +
    `${BASELINE_RATIO}x, ${over} over it, ${compared.length - within - over} undecided in ` +
    `this run; slowest ${slowest.ratio!.toFixed(2)}x (${slowest.label})`
  );
}
