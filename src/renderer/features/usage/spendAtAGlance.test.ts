import { describe, expect, it } from 'vitest';
import type { KeyView } from '../../../shared/admin';
import { bucketLabel, formatRate, keyBudgetRows, performanceBucket } from './spendAtAGlance';

const NOW = Date.UTC(2026, 10, 24, 12);
const key = (over: Partial<KeyView>): KeyView => ({
  id: 'k',
  name: 'k',
  group: 'default',
  prefix: 'abc',
  status: 'active',
  createdAt: 0,
  lastUsedAt: null,
  concurrencyLimit: null,
  fallbackLadder: false,
  requests: 0,
  costMicros: 0,
  builtIn: false,
  budgetMicros: null,
  budgetPeriod: null,
  rpmLimit: null,
  imagesPerDay: null,
  expiresAt: null,
  limitUse: { budgetUsedMicros: null, budgetResetsAt: null, imagesToday: 0, requestsLastMinute: 0 },
  ...over,
});

describe('keyBudgetRows', () => {
  it('lists the keys with a budget, the most used first, with what they spent in the period', () => {
    const rows = keyBudgetRows(
      [
        key({ id: 'a', name: 'no budget' }),
        key({
          id: 'b',
          name: 'Blender',
          budgetMicros: 5_000_000,
          budgetPeriod: 'month',
          limitUse: {
            budgetUsedMicros: 420_000,
            budgetResetsAt: null,
            imagesToday: 0,
            requestsLastMinute: 0,
          },
        }),
        key({
          id: 'c',
          name: 'Script',
          budgetMicros: 1_000_000,
          budgetPeriod: 'day',
          limitUse: {
            budgetUsedMicros: 1_250_000,
            budgetResetsAt: null,
            imagesToday: 0,
            requestsLastMinute: 0,
          },
        }),
      ],
      NOW,
    );
    expect(rows.map((r) => [r.id, r.label, r.percent, r.tone, r.fill])).toEqual([
      ['c', '$1.25 of $1.00 today', 125, 'over', 1],
      ['b', '$0.42 of $5.00 this month', 8, 'ok', 0.084],
    ]);
  });
});

describe('performance formatting', () => {
  it('buckets hours for a day and days beyond', () => {
    expect(performanceBucket('24h')).toBe('hour');
    expect(performanceBucket('30d')).toBe('day');
    expect(bucketLabel('2026-11-24T09')).toBe('2026-11-24 09:00');
    expect(bucketLabel('2026-11-24')).toBe('2026-11-24');
  });

  it('never rounds a failure away', () => {
    expect(formatRate(1)).toBe('100 %');
    expect(formatRate(0.75)).toBe('75 %');
    expect(formatRate(0.9999)).toBe('99.9 %');
    expect(formatRate(0)).toBe('0 %');
  });
});
