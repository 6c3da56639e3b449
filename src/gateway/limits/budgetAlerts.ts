import type { BudgetAlert } from '../../shared/admin';
import type { KeyLimits } from './keyLimits';
import { periodBounds } from './periods';

/** The shares of a budget whose passing is announced, once each per period. */
export const BUDGET_ALERT_PERCENTS = [50, 80, 100] as const;

/**
 * The alerts a charged request raises: each threshold that the key's spend in the period passed
 * with this request's cost (before < threshold <= after). Spend only grows within a period, so
 * each threshold is passed once per period, and since both figures come from the usage log this
 * holds across restarts with no alert state of its own.
 */
export function budgetAlerts(
  key: { id: string; limits: KeyLimits },
  chargedMicros: number,
  spentInPeriod: (since: number) => number,
  startedAt: number,
  now: number,
): BudgetAlert[] {
  const { budgetMicros, budgetPeriod } = key.limits;
  if (budgetMicros === null || budgetPeriod === null || chargedMicros <= 0) return [];
  // The request counts in the period it started in (as its usage row does).
  const period = periodBounds(budgetPeriod, startedAt);
  const after = spentInPeriod(period.start);
  const before = after - chargedMicros;
  return BUDGET_ALERT_PERCENTS.filter((percent) => {
    const threshold = (budgetMicros * percent) / 100;
    return before < threshold && after >= threshold;
  }).map((percent) => ({
    apiKeyId: key.id,
    percent,
    period: budgetPeriod,
    budgetMicros,
    spentMicros: after,
    periodStart: period.start,
    resetsAt: period.resetsAt,
    at: now,
  }));
}
