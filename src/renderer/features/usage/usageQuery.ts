import type { UsageTotal } from '../../../shared/admin';
import { formatDay } from '../../lib/format';

export const RANGES = [
  { value: '24h', label: '24 hours' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: '90d', label: '90 days' },
  { value: 'all', label: 'All time' },
] as const;
export type RangeId = (typeof RANGES)[number]['value'];

const DAY = 86_400_000;

/**
 * The start of a range, in ms. Day ranges start at local midnight, so "7 days" is today and the
 * six days before it, whole; undefined for all time.
 */
export function rangeSince(range: RangeId, now: number): number | undefined {
  if (range === 'all') return undefined;
  if (range === '24h') return now - DAY;
  const days = Number(range.slice(0, -1));
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  midnight.setDate(midnight.getDate() - (days - 1));
  return midnight.getTime();
}

/** East positive, as GET /usage/totals wants it, so days break at the user's midnight. */
export function utcOffsetMinutes(at: number): number {
  return -new Date(at).getTimezoneOffset();
}

export const METRICS = [
  { value: 'cost', label: 'Cost' },
  { value: 'tokens', label: 'Tokens' },
  { value: 'requests', label: 'Requests' },
] as const;
export type MetricId = (typeof METRICS)[number]['value'];

export function metricOf(row: UsageTotal, metric: MetricId): number {
  if (metric === 'cost') return row.costMicros;
  if (metric === 'tokens') return row.totalTokens;
  return row.requests;
}

export interface Series {
  labels: string[];
  values: number[];
}

/**
 * Totals by day as a series with every day of the range present (a day without requests is a
 * zero, not a gap that makes two distant days look adjacent).
 */
export function daySeries(
  rows: readonly UsageTotal[],
  metric: MetricId,
  since: number | undefined,
  now: number,
): Series {
  const byDay = new Map(rows.map((r) => [r.key ?? '', metricOf(r, metric)] as const));
  const first = since ?? (rows[0]?.key ? Date.parse(`${rows[0].key}T12:00:00`) : now);
  const labels: string[] = [];
  const start = new Date(first);
  start.setHours(12, 0, 0, 0);
  // Noon steps: a daylight-saving change never skips or repeats a date.
  for (let t = start.getTime(); formatDay(t) <= formatDay(now); t += DAY) {
    labels.push(formatDay(t));
    if (labels.length > 400) break;
  }
  for (const key of byDay.keys()) if (key && !labels.includes(key)) labels.push(key);
  labels.sort();
  return { labels, values: labels.map((day) => byDay.get(day) ?? 0) };
}

/** Totals by model, key or account, largest first, the label a person reads. */
export function groupSeries(
  rows: readonly UsageTotal[],
  metric: MetricId,
  unnamed: string,
  limit = 12,
): Series {
  const sorted = [...rows].sort((a, b) => metricOf(b, metric) - metricOf(a, metric));
  const top = sorted.slice(0, limit);
  const rest = sorted.slice(limit);
  const labels = top.map((r) => r.label ?? r.key ?? unnamed);
  const values = top.map((r) => metricOf(r, metric));
  if (rest.length > 0) {
    labels.push(`${rest.length} more`);
    values.push(rest.reduce((sum, r) => sum + metricOf(r, metric), 0));
  }
  return { labels, values };
}
