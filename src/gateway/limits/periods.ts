import type { BudgetPeriod } from './keyLimits';

/** The window requests per minute are counted over: any 60 seconds, not a clock minute. */
export const RPM_WINDOW_MS = 60_000;

/** When the period holding `now` began and when it ends (null: a total budget never resets). */
export interface PeriodBounds {
  start: number;
  resetsAt: number | null;
}

/** UTC calendar periods: the same boundaries for every process on every machine. */
export function periodBounds(period: BudgetPeriod | 'day', now: number): PeriodBounds {
  const at = new Date(now);
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  switch (period) {
    case 'day': {
      const start = Date.UTC(year, month, at.getUTCDate());
      return { start, resetsAt: Date.UTC(year, month, at.getUTCDate() + 1) };
    }
    case 'month':
      return { start: Date.UTC(year, month, 1), resetsAt: Date.UTC(year, month + 1, 1) };
    case 'total':
      return { start: 0, resetsAt: null };
  }
}
