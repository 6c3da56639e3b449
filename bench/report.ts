import fs from 'node:fs';
import path from 'node:path';
import type { RunIdentity } from './agreement';
import { formatMb, formatMs, type Distribution } from './stats';

/** One line of the table. Latency rows compare p50s; other units say so in `unit`. */
export interface Row {
  id: string;
  label: string;
  unit: 'ms' | 'req/s' | 'bytes' | 'count';
  direct: Distribution | null;
  through: Distribution | null;
  /** through p50 - direct p50, in ms (latency rows only). */
  addedMs: number | null;
  /** through p50 / direct p50. */
  ratio: number | null;
  target: string;
  /** null when the row has no target (information only). */
  pass: boolean | null;
  /**
   * Shown instead of `through`'s p50 / p90, for figures that are not a distribution of the
   * harness's own samples (the studio's: Playwright's p50 / p95 frame times, one paint time).
   */
  throughText?: string;
  /** Whatever else was measured: body sizes, peak RSS, per-event figures. */
  details?: Record<string, unknown>;
  /**
   * Cases run in rounds: the compared figure per round, summarised (the median of the rounds'
   * figures is the one `addedMs` or `ratio` gives, the min-max is how far noise moved it).
   */
  spread?: {
    min: number;
    max: number;
    rounds: number;
    unit: 'ms' | 'x' | 'req/s';
    /** The min .. max is a confidence interval around the ratio (versusBaseline.ts), not a range. */
    interval?: boolean;
    /** The interval is over this many pairs of gateway children (--pairs), not over the rounds. */
    pairs?: number;
  };
  /**
   * A target the run could not decide either way (an interval across the limit): why. Its
   * `pass` is null, and it counts among the targets without a verdict.
   */
  undecided?: string;
  /** pass/FAIL only when two full runs agree (agreement.ts); set by main before the table. */
  verdict?: string;
}

/**
 * A row of times, direct against through: the added milliseconds and the ratio follow from the
 * p50s. Without a target it is for information.
 */
export function timeRow(fields: {
  id: string;
  label: string;
  direct: Distribution;
  through: Distribution;
  target?: string;
  pass?: boolean | null;
  details?: Record<string, unknown>;
  /** The added ms when it is not the p50s' difference (the median of the rounds' added). */
  addedMs?: number;
  spread?: Row['spread'];
}): Row {
  const { direct, through } = fields;
  return {
    unit: 'ms',
    addedMs: through.p50 - direct.p50,
    ratio: through.p50 / direct.p50,
    target: '-',
    pass: null,
    ...fields,
  };
}

function spreadCell(s: Row['spread']): string {
  if (!s) return '-';
  const f = (x: number) =>
    s.unit === 'ms' ? formatMs(x) : s.unit === 'x' ? `${x.toFixed(2)}x` : x.toFixed(1);
  const over = s.pairs ? `${s.pairs} pairs, ${s.rounds} rounds` : `${s.rounds} rounds`;
  return `${f(s.min)} .. ${f(s.max)} (${s.interval ? '90 % interval, ' : ''}${over})`;
}

function cell(d: Distribution | null, unit: Row['unit']): string {
  if (!d) return '-';
  if (unit === 'ms') return `${formatMs(d.p50)} / ${formatMs(d.p90)}`;
  if (unit === 'req/s') return `${d.p50.toFixed(1)} req/s`;
  if (unit === 'count') return d.p50.toFixed(1);
  return `peak ${formatMb(d.max)}`;
}

export function tableLines(rows: readonly Row[]): string[] {
  const header = [
    'Case',
    'Direct p50 / p90',
    'Through p50 / p90',
    'Added',
    'Ratio',
    'Rounds min .. max',
    'Target',
    'Result',
  ];
  const TEXT_COLUMNS = new Set([0, 6, 7]);
  const body = rows.map((r) => [
    r.label,
    cell(r.direct, r.unit),
    r.throughText ?? cell(r.through, r.unit),
    r.addedMs === null ? '-' : `${r.addedMs >= 0 ? '+' : ''}${formatMs(r.addedMs)}`,
    r.ratio === null ? '-' : `${r.ratio.toFixed(2)}x`,
    spreadCell(r.spread),
    r.target,
    r.verdict ?? (r.pass === null ? 'info' : r.pass ? 'pass' : 'FAIL'),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (TEXT_COLUMNS.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (TEXT_COLUMNS.has(i) ? `-${'-'.repeat(w)}-` : `-${'-'.repeat(w)}:`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)];
}

export interface BenchReport {
  startedAt: string;
  durationMs: number;
  mode: 'quick' | 'full';
  /** Commit, machine and mode: which earlier runs may decide a verdict with this one. */
  identity: RunIdentity;
  machine: Record<string, unknown>;
  /** Share of the machine's CPU that processes other than the benchmark's used, per group. */
  foreignLoad: Record<string, number | undefined>;
  settings: Record<string, unknown>;
  rows: Row[];
}

/** Writes bench-results/<timestamp>.json and bench-results/latest.json; returns the first path. */
export function writeReport(report: BenchReport, dir = 'bench-results'): string {
  fs.mkdirSync(dir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-');
  const file = path.join(dir, `${stamp}.json`);
  const text = `${JSON.stringify(report, null, 2)}\n`;
  fs.writeFileSync(file, text);
  fs.writeFileSync(path.join(dir, 'latest.json'), text);
  return file;
}
