import { dollarsToMicros, formatUsd } from '../../shared/costEstimate';
import {
  BUDGET_PERIODS,
  NO_LIMITS,
  type BudgetPeriod,
  type KeyLimits,
  type KeyLimitsPatch,
} from '../limits/keyLimits';
import type { KeyLimitUse } from '../limits/limiter';
import { ArgsError } from './args';

/** The limit flags of `keys create` and `keys limit` (`--none` only on `limit`). */
export const LIMIT_FLAGS = {
  budget: 'string',
  'budget-period': 'string',
  rpm: 'string',
  'images-per-day': 'string',
  expires: 'string',
} as const;

type LimitFlagValues = { [K in keyof typeof LIMIT_FLAGS]: string | undefined };

/**
 * The limits the flags set; a flag left out is left as it is, and `none` as a value clears that
 * one limit (`--budget none`). Malformed values are ArgsErrors (exit 2, with the usage).
 */
export function limitsFromFlags(flags: LimitFlagValues): KeyLimitsPatch {
  const patch: KeyLimitsPatch = {};
  if (flags.budget !== undefined) {
    if (flags.budget === 'none') patch.budgetMicros = null;
    else {
      const micros = dollarsToMicros(flags.budget.replace(/^\$/, ''));
      if (micros === null || micros <= 0)
        throw new ArgsError(`--budget takes dollars, such as 5 or 12.50; got '${flags.budget}'`);
      patch.budgetMicros = micros;
    }
  }
  if (flags['budget-period'] !== undefined) {
    const period = flags['budget-period'];
    if (!(BUDGET_PERIODS as readonly string[]).includes(period))
      throw new ArgsError(`--budget-period is day, month or total; got '${period}'`);
    patch.budgetPeriod = period as BudgetPeriod;
  }
  if (flags.rpm !== undefined) patch.rpmLimit = count('rpm', flags.rpm);
  if (flags['images-per-day'] !== undefined)
    patch.imagesPerDay = count('images-per-day', flags['images-per-day']);
  if (flags.expires !== undefined) patch.expiresAt = expiry(flags.expires);
  return patch;
}

/** Every limit cleared (`keys limit ID --none`). */
export const CLEAR_ALL_LIMITS: KeyLimitsPatch = { ...NO_LIMITS };

function count(flag: string, value: string): number | null {
  if (value === 'none') return null;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new ArgsError(`--${flag} takes a whole number of at least 1 (or none); got '${value}'`);
  return Number(value);
}

/**
 * `YYYY-MM-DD` is the UTC day the key stops working (it works through the day before); a full ISO
 * time (`2026-12-01T09:00:00Z`) is the exact moment.
 */
function expiry(value: string): number | null {
  if (value === 'none') return null;
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const ms = date
    ? Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]))
    : /^\d{4}-\d{2}-\d{2}T/.test(value)
      ? Date.parse(value)
      : Number.NaN;
  const valid = Number.isFinite(ms) && (!date || new Date(ms).toISOString().startsWith(value));
  if (!valid)
    throw new ArgsError(`--expires takes a date YYYY-MM-DD (UTC) or an ISO time; got '${value}'`);
  return ms;
}

/** "$5.00/day", "12 rpm", ...: one cell for the keys table. */
export function describeLimits(limits: KeyLimits, use: KeyLimitUse, now: number): string {
  const parts: string[] = [];
  if (limits.budgetMicros !== null) {
    const per = limits.budgetPeriod === 'total' ? ' total' : `/${limits.budgetPeriod ?? 'month'}`;
    parts.push(
      `${formatUsd(use.budgetUsedMicros ?? 0)} of ${formatUsd(limits.budgetMicros)}${per}`,
    );
  }
  if (limits.rpmLimit !== null) parts.push(`${use.requestsLastMinute}/${limits.rpmLimit} rpm`);
  if (limits.imagesPerDay !== null)
    parts.push(`${use.imagesToday}/${limits.imagesPerDay} images today`);
  if (limits.expiresAt !== null) {
    const when = new Date(limits.expiresAt)
      .toISOString()
      .replace('T00:00:00.000Z', '')
      .replace('.000Z', 'Z');
    parts.push(limits.expiresAt <= now ? `expired ${when}` : `expires ${when}`);
  }
  return parts.length ? parts.join(', ') : 'none';
}
