import { describe, expect, it } from 'vitest';
import type { UsageTotal } from '../../../shared/admin';
import { daySeries, groupSeries, rangeSince } from './usageQuery';

const total = (
  key: string | null,
  costMicros: number,
  label: string | null = null,
): UsageTotal => ({
  key,
  label,
  requests: 1,
  errors: 0,
  cancelled: 0,
  inputTokens: 0,
  inputTextTokens: 0,
  inputImageTokens: 0,
  outputTokens: 0,
  outputTextTokens: 0,
  outputImageTokens: 0,
  totalTokens: 10,
  images: 1,
  costMicros,
});

describe('usage ranges and series', () => {
  const now = new Date(2026, 3, 21, 15, 30).getTime();

  it('starts day ranges at local midnight, and 24 hours exactly a day back', () => {
    expect(new Date(rangeSince('7d', now)!)).toEqual(new Date(2026, 3, 15, 0, 0));
    expect(rangeSince('24h', now)).toBe(now - 86_400_000);
    expect(rangeSince('all', now)).toBeUndefined();
  });

  it('fills every day of the range, zero where nothing happened', () => {
    const series = daySeries(
      [total('2026-04-16', 500), total('2026-04-21', 700)],
      'cost',
      rangeSince('7d', now),
      now,
    );
    expect(series.labels).toEqual([
      '2026-04-15',
      '2026-04-16',
      '2026-04-17',
      '2026-04-18',
      '2026-04-19',
      '2026-04-20',
      '2026-04-21',
    ]);
    expect(series.values).toEqual([0, 500, 0, 0, 0, 0, 700]);
  });

  it('orders groups by the metric, names them, and folds the tail into one bar', () => {
    const rows = [total('k1', 5, 'app'), total('k2', 50, 'studio'), total(null, 1), total('k3', 2)];
    expect(groupSeries(rows, 'cost', '(none)', 2)).toEqual({
      labels: ['studio', 'app', '2 more'],
      values: [50, 5, 3],
    });
  });
});
