import { describe, expect, it } from 'vitest';
import { budgetAlerts } from './budgetAlerts';
import { NO_LIMITS } from './keyLimits';
import { periodBounds } from './periods';

describe('periodBounds', () => {
  const at = Date.UTC(2026, 11, 31, 23, 59, 59, 999);

  it('takes UTC calendar days and months, across the turn of a year', () => {
    expect(periodBounds('day', at)).toEqual({
      start: Date.UTC(2026, 11, 31),
      resetsAt: Date.UTC(2027, 0, 1),
    });
    expect(periodBounds('month', at)).toEqual({
      start: Date.UTC(2026, 11, 1),
      resetsAt: Date.UTC(2027, 0, 1),
    });
    expect(periodBounds('day', Date.UTC(2027, 0, 1))).toEqual({
      start: Date.UTC(2027, 0, 1),
      resetsAt: Date.UTC(2027, 0, 2),
    });
  });

  it('has a total budget start at the beginning of time and never reset', () => {
    expect(periodBounds('total', at)).toEqual({ start: 0, resetsAt: null });
  });
});

describe('budgetAlerts', () => {
  const key = {
    id: 'key_1',
    limits: { ...NO_LIMITS, budgetMicros: 1_000, budgetPeriod: 'total' as const },
  };
  const percents = (before: number, cost: number) =>
    budgetAlerts(key, cost, () => before + cost, 0, 1).map((a) => a.percent);

  it('announces each threshold the request took the spend from below to at or above', () => {
    expect(percents(0, 499)).toEqual([]);
    expect(percents(0, 500)).toEqual([50]);
    expect(percents(499, 400)).toEqual([50, 80]);
    expect(percents(500, 300)).toEqual([80]);
    expect(percents(800, 200)).toEqual([100]);
    expect(percents(1_000, 50)).toEqual([]);
  });

  it('says nothing without a budget or for a request that cost nothing', () => {
    expect(budgetAlerts({ id: 'k', limits: NO_LIMITS }, 900, () => 900, 0, 1)).toEqual([]);
    expect(percents(500, 0)).toEqual([]);
  });
});
