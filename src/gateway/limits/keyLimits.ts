import { invalidParam } from '../core/errors';

export const BUDGET_PERIODS = ['day', 'month', 'total'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/**
 * A key's own limits, each null when it has none. Days and months are UTC calendar days and
 * months, so every process and every time zone agrees on when a period resets.
 */
export interface KeyLimits {
  /** Spend allowed per `budgetPeriod`, in integer micro-dollars. */
  budgetMicros: number | null;
  /** Set exactly when `budgetMicros` is. */
  budgetPeriod: BudgetPeriod | null;
  /** Requests accepted in any 60 seconds. */
  rpmLimit: number | null;
  /** Images delivered per UTC day. */
  imagesPerDay: number | null;
  /** ms since the epoch from which the key no longer works. */
  expiresAt: number | null;
}

export const NO_LIMITS: KeyLimits = {
  budgetMicros: null,
  budgetPeriod: null,
  rpmLimit: null,
  imagesPerDay: null,
  expiresAt: null,
};

/** The same limits as input: a field left out keeps its value, null clears it. */
export type KeyLimitsPatch = Partial<KeyLimits>;

/** A billion dollars: beyond it a budget is no budget, and the sums stay exact integers. */
const MAX_BUDGET_MICROS = 1_000_000_000 * 1_000_000;
const MAX_COUNT = 1_000_000;
/** Year 9999: expiry dates are dates people type, not far-future sentinels. */
const MAX_EXPIRY = Date.UTC(9999, 11, 31);

/**
 * Applies a patch to limits and checks the result, naming the parameter at fault. A budget given
 * without a period is a monthly one; clearing the budget clears its period.
 */
export function applyLimits(current: KeyLimits, patch: KeyLimitsPatch): KeyLimits {
  const next: KeyLimits = { ...current };
  if (patch.budgetMicros !== undefined) next.budgetMicros = patch.budgetMicros;
  if (patch.budgetPeriod !== undefined) next.budgetPeriod = patch.budgetPeriod;
  if (patch.rpmLimit !== undefined) next.rpmLimit = patch.rpmLimit;
  if (patch.imagesPerDay !== undefined) next.imagesPerDay = patch.imagesPerDay;
  if (patch.expiresAt !== undefined) next.expiresAt = patch.expiresAt;

  // Clearing the budget clears its period, unless the same patch says otherwise.
  if (patch.budgetMicros === null && patch.budgetPeriod === undefined) next.budgetPeriod = null;
  if (next.budgetMicros === null) {
    if (next.budgetPeriod !== null)
      throw invalidParam('budget_period', 'A budget period needs a budget (budget_micros).');
  } else {
    wholeNumber('budget_micros', next.budgetMicros, 1, MAX_BUDGET_MICROS, 'Budget');
    next.budgetPeriod ??= 'month';
    if (!BUDGET_PERIODS.includes(next.budgetPeriod)) {
      throw invalidParam('budget_period', 'Budget period must be day, month or total.');
    }
  }
  if (next.rpmLimit !== null)
    wholeNumber('rpm_limit', next.rpmLimit, 1, MAX_COUNT, 'Requests per minute');
  if (next.imagesPerDay !== null)
    wholeNumber('images_per_day', next.imagesPerDay, 1, MAX_COUNT, 'Images per day');
  if (next.expiresAt !== null) wholeNumber('expires_at', next.expiresAt, 0, MAX_EXPIRY, 'Expiry');
  return next;
}

/** Just the limit fields of a record that carries them (a key record). */
export function limitsOf(record: KeyLimits): KeyLimits {
  const { budgetMicros, budgetPeriod, rpmLimit, imagesPerDay, expiresAt } = record;
  return { budgetMicros, budgetPeriod, rpmLimit, imagesPerDay, expiresAt };
}

/** Whether a key has any limit that needs the per-request checks. */
export function hasLimits(limits: KeyLimits): boolean {
  return (
    limits.budgetMicros !== null ||
    limits.rpmLimit !== null ||
    limits.imagesPerDay !== null ||
    limits.expiresAt !== null
  );
}

function wholeNumber(param: string, value: number, min: number, max: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidParam(param, `${what} must be a whole number from ${min} to ${max}, or none.`);
  }
}
