import type { Blocks } from '../blocks';
import type { BenchContext } from '../context';
import { timeRow, type Row } from '../report';
import { addedByRound } from '../rounds';
import { distribution } from '../stats';
import { PAIR_ROUNDS } from '../plan';
import { baselineRow } from '../versusBaseline';
import type { Way } from '../ways';

/** One figure of a case's samples (a stream's first partial, its completion), as its own blocks. */
export function mapBlocks<Sample>(
  result: Blocks<Way, Sample>,
  figure: (s: Sample) => number,
): Blocks<Way, number> {
  const map = <T>(record: Partial<Record<Way, T>>, f: (v: T) => unknown) =>
    Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v as T)]));
  return {
    ...result,
    samples: map(result.samples, (list: Sample[]) => list.map(figure)) as Record<Way, number[]>,
    byRound: map(result.byRound, (rounds: Sample[][]) =>
      rounds.map((r) => r.map(figure)),
    ) as Record<Way, number[][]>,
  };
}

/** A before/after row in a log line: the ratio, and its interval when it has one. */
function describeVersus(row: Row): string {
  const s = row.spread;
  const interval = s?.interval ? ` (${s.min.toFixed(2)}x .. ${s.max.toFixed(2)}x)` : '';
  const pairs = s?.pairs ? `${s.pairs} pairs, ` : '';
  return `${row.ratio!.toFixed(2)}x${interval} over ${pairs}${s?.rounds ?? 0} rounds`;
}

const median = (values: readonly number[] | undefined): number =>
  values && values.length > 0 ? distribution(values).p50 : Number.NaN;

/**
 * The rows of a case timed in rounds (ms): the floor's, the installed gateway's (the one with the
 * target, under the case's own id), the gallery-off gateway's, and with --baseline installed /
 * baseline. Added = each round's median minus direct's in the same round, the median over the
 * rounds; the spread is their min .. max.
 */
export function roundsRows(
  ctx: BenchContext,
  fields: {
    id: string;
    label: string;
    result: Blocks<Way, number>;
    /** The installed gateway's target on its added ms, if the case has one. */
    budget?: { text: string; pass: (addedMs: number) => boolean };
    details?: Record<string, unknown>;
  },
): Row[] {
  const { id, label, result } = fields;
  const versus = () =>
    baselineRow({
      id,
      label,
      unit: 'ms',
      installed: result.byRound.installed,
      baseline: result.byRound.baseline,
      commit: ctx.baseline!.commit,
      // --pairs: the rounds came from pairs of gateway children, PAIR_ROUNDS each.
      ...(ctx.plan.pairs !== null && { pairRounds: PAIR_ROUNDS }),
    });
  // --pairs: the two gateways alone, so the before/after row alone.
  if (!Object.hasOwn(result.byRound, 'direct')) {
    const row = versus();
    ctx.log(`${label}: installed / baseline ${describeVersus(row)}`);
    return [row];
  }
  const direct = distribution(result.samples.direct);
  const added = (way: Way) => {
    const s = addedByRound(result.byRound[way], result.byRound.direct);
    return {
      addedMs: s.median,
      spread: { min: s.min, max: s.max, rounds: s.rounds, unit: 'ms' as const },
    };
  };
  const cpu = (way: Way) => ({
    gatewayCpuMsPerCall: median(result.cpuInMs[way]) + median(result.cpuAfterMs[way]),
    settleMs: median(result.settleMs[way]),
  });
  const floorAdded = added('floor').addedMs;
  const installedAdded = added('installed').addedMs;
  const rows: Row[] = [
    timeRow({
      id: `${id}.floor`,
      label: `${label}, floor: streaming Node proxy`,
      direct,
      through: distribution(result.samples.floor),
      ...added('floor'),
      details: fields.details,
    }),
    timeRow({
      id,
      label: `${label}, as installed`,
      direct,
      through: distribution(result.samples.installed),
      ...added('installed'),
      target: fields.budget?.text ?? '-',
      pass: fields.budget ? fields.budget.pass(installedAdded) : null,
      details: {
        ...fields.details,
        ...cpu('installed'),
        floorAddedMs: floorAdded,
        ratioToFloorAdded: installedAdded / floorAdded,
      },
    }),
    timeRow({
      id: `${id}.off`,
      label: `${label}, gallery off`,
      direct,
      through: distribution(result.samples.off),
      ...added('off'),
      details: { ...fields.details, ...cpu('off') },
    }),
  ];
  if (ctx.baseline && Object.hasOwn(result.byRound, 'baseline')) rows.push(versus());
  ctx.log(
    `${label}: added over direct, median of ${added('installed').spread.rounds} rounds: floor ` +
      `${floorAdded.toFixed(1)}, installed ${installedAdded.toFixed(1)}, off ` +
      `${added('off').addedMs.toFixed(1)} ms` +
      (rows.length > 3 ? `; installed / baseline ${describeVersus(rows[3]!)}` : ''),
  );
  return rows;
}
