import type { Row } from './report';
import { ratioByRound, type RoundSummary } from './rounds';
import { distribution } from './stats';

/** Issue 24: every case within 1.05x of the tree before the change. */
export const BASELINE_RATIO = 1.05;

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
 * The row that compares a case's installed way with the baseline's: the Direct column holds the
 * baseline, Through the installed gateway, Ratio the median of the rounds' slowdowns and the
 * spread their min .. max. No rounds (a way that never ran): no verdict.
 */
export function baselineRow(fields: {
  id: string;
  label: string;
  unit: 'ms' | 'req/s';
  installed: ReadonlyArray<readonly number[]>;
  baseline: ReadonlyArray<readonly number[]>;
  /** The baseline's commit, for the reader of the JSON. */
  commit: string;
}): Row {
  const s = slowdownByRound(fields.installed, fields.baseline, fields.unit);
  const base = distribution(fields.baseline.flat());
  const mine = distribution(fields.installed.flat());
  return {
    id: `${fields.id}.baseline`,
    label: `${fields.label}: as installed / baseline`,
    unit: fields.unit,
    direct: base,
    through: mine,
    addedMs: fields.unit === 'ms' ? mine.p50 - base.p50 : null,
    ratio: s.median,
    spread: { min: s.min, max: s.max, rounds: s.rounds, unit: 'x' },
    target: `<= ${BASELINE_RATIO}x the baseline's ${fields.unit === 'ms' ? 'time' : '1 / rate'}`,
    pass: s.rounds === 0 ? null : s.median <= BASELINE_RATIO,
    details: {
      baselineCommit: fields.commit,
      slowdown: fields.unit === 'ms' ? 'installed / baseline time' : 'baseline / installed rate',
      roundSlowdowns: s.roundMedians,
    },
  };
}

/**
 * One line for issue 24's question over a run's `.baseline` rows: how many cases are within
 * 1.05x in this run, and the slowest. The verdict is still per row, from two agreeing runs.
 */
export function baselineSummary(rows: readonly Row[], commit: string): string {
  const compared = rows.filter((r) => r.id.endsWith('.baseline') && r.ratio !== null);
  if (compared.length === 0) return `installed / baseline ${commit}: no case compared`;
  const within = compared.filter((r) => r.pass === true).length;
  const slowest = compared.reduce((a, b) => ((b.ratio ?? 0) > (a.ratio ?? 0) ? b : a));
  return (
    `installed / baseline ${commit}: ${within} of ${compared.length} cases within ` +
    `${BASELINE_RATIO}x in this run; slowest ${slowest.ratio!.toFixed(2)}x (${slowest.label})`
  );
}
