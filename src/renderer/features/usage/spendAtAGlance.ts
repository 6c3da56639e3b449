import type { KeyView } from '../../../shared/admin';
import {
  budgetLabel,
  budgetPercent,
  budgetTone,
  utcPeriodStart,
  type StudioBudget,
} from '../budget/studioBudget';
import type { RangeId } from './usageQuery';

/** One key's spend against its budget, as the Usage page's budgets panel shows it. */
export interface KeyBudgetRow {
  id: string;
  name: string;
  builtIn: boolean;
  percent: number;
  /** "$0.42 of $5.00 this month" */
  label: string;
  tone: ReturnType<typeof budgetTone>;
  /** The bar's fill, 0 to 1. */
  fill: number;
}

/** The keys that have a budget, the closest to theirs first. */
export function keyBudgetRows(keys: readonly KeyView[], now: number): KeyBudgetRow[] {
  return keys
    .flatMap((key) => {
      if (key.budgetMicros === null || key.budgetPeriod === null) return [];
      const budget: StudioBudget = {
        kind: 'key',
        period: key.budgetPeriod,
        budgetMicros: key.budgetMicros,
        spentMicros: key.limitUse.budgetUsedMicros ?? 0,
        periodStart: utcPeriodStart(key.budgetPeriod, now),
      };
      return [
        {
          id: key.id,
          name: key.name,
          builtIn: key.builtIn,
          percent: budgetPercent(budget),
          label: budgetLabel(budget),
          tone: budgetTone(budget),
          fill: Math.min(1, budget.spentMicros / budget.budgetMicros),
        },
      ];
    })
    .sort((a, b) => b.percent - a.percent || a.name.localeCompare(b.name));
}

/** Hours for the last day, days for longer ranges. */
export function performanceBucket(range: RangeId): 'hour' | 'day' {
  return range === '24h' ? 'hour' : 'day';
}

/** `2026-11-24` stays; `2026-11-24T21` reads `2026-11-24 21:00`. */
export function bucketLabel(bucket: string): string {
  const hour = /^(\d{4}-\d{2}-\d{2})T(\d{2})$/.exec(bucket);
  return hour ? `${hour[1]} ${hour[2]}:00` : bucket;
}

/** 0.75 -> "75 %", 0.9987 -> "99.9 %" (one place, never rounded up to 100 % while one failed). */
export function formatRate(rate: number): string {
  const tenths = Math.floor(rate * 1000) / 10;
  return `${Number.isInteger(tenths) ? tenths.toFixed(0) : tenths.toFixed(1)} %`;
}
