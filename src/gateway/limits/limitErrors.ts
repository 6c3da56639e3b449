import { ERROR_TYPES, type ErrorBody } from '../../shared/errors';
import { formatUsd } from '../../shared/costEstimate';
import { ApiError, invalidApiKey } from '../core/errors';
import type { BudgetPeriod } from './keyLimits';

export const LIMIT_ERROR_CODES = {
  budgetExceeded: 'budget_exceeded',
  rateLimitExceeded: 'rate_limit_exceeded',
} as const;

/** Which limit refused a request, in the units a client can compare (dollars, requests, images). */
export interface LimitDetail {
  name: 'budget' | 'requests_per_minute' | 'images_per_day';
  period: BudgetPeriod | 'minute';
  unit: 'usd' | 'requests' | 'images';
  /** The limit's size. */
  limit: number;
  /** Used so far in the period, in-flight reservations included. */
  used: number;
  /** What this request needed (its estimate for a budget). */
  requested: number;
  /** ISO 8601 time the period resets; null for a total budget, which never does. */
  resets_at: string | null;
}

/** `retry-after` beyond this is no reason for an SDK to wait and retry blindly. */
const BLIND_RETRY_MAX_S = 60;
const MICROS = 1_000_000;

/**
 * A 429 for one of a key's own limits. The body is the usual error plus `error.limit`, so a
 * client can read the limit, the use and the reset without parsing the message.
 */
export class LimitError extends ApiError {
  readonly limit: LimitDetail;

  constructor(code: string, message: string, limit: LimitDetail, now: number) {
    const headers: Record<string, string> = {};
    const resetsAt = limit.resets_at === null ? null : Date.parse(limit.resets_at);
    const waitS = resetsAt === null ? null : Math.max(1, Math.ceil((resetsAt - now) / 1000));
    if (waitS !== null) headers['retry-after'] = String(waitS);
    if (waitS === null || waitS > BLIND_RETRY_MAX_S) headers['x-should-retry'] = 'false';
    super(429, message, { type: ERROR_TYPES.rateLimit, code, headers });
    this.limit = limit;
  }

  override toBody(): ErrorBody & { error: { limit: LimitDetail } } {
    const body = super.toBody();
    return { error: { ...body.error, limit: this.limit } };
  }
}

export function budgetExceeded(
  period: BudgetPeriod,
  budgetMicros: number,
  usedMicros: number,
  requestedMicros: number,
  resetsAt: number | null,
  now: number,
): LimitError {
  const per = period === 'total' ? 'in total' : `per ${period}`;
  const reset =
    resetsAt === null
      ? 'A total budget does not reset; raise it with `atelier keys limit`.'
      : `It resets at ${iso(resetsAt)}.`;
  return new LimitError(
    LIMIT_ERROR_CODES.budgetExceeded,
    `Budget exceeded: this key may spend ${formatUsd(budgetMicros)} ${per}; ` +
      `${formatUsd(usedMicros)} is spent or reserved and this request is estimated at ` +
      `${formatUsd(requestedMicros)}. ${reset}`,
    {
      name: 'budget',
      period,
      unit: 'usd',
      limit: budgetMicros / MICROS,
      used: usedMicros / MICROS,
      requested: requestedMicros / MICROS,
      resets_at: resetsAt === null ? null : iso(resetsAt),
    },
    now,
  );
}

export function requestsPerMinuteExceeded(
  limit: number,
  used: number,
  resetsAt: number,
  now: number,
): LimitError {
  return new LimitError(
    LIMIT_ERROR_CODES.rateLimitExceeded,
    `Rate limit exceeded: this key may make ${limit} request(s) per minute and made ${used} in ` +
      `the last 60 seconds. Another is allowed at ${iso(resetsAt)}.`,
    {
      name: 'requests_per_minute',
      period: 'minute',
      unit: 'requests',
      limit,
      used,
      requested: 1,
      resets_at: iso(resetsAt),
    },
    now,
  );
}

export function imagesPerDayExceeded(
  limit: number,
  used: number,
  requested: number,
  resetsAt: number,
  now: number,
): LimitError {
  return new LimitError(
    LIMIT_ERROR_CODES.rateLimitExceeded,
    `Rate limit exceeded: this key may make ${limit} image(s) per day; ${used} are made or in ` +
      `progress today and this request asks for ${requested}. It resets at ${iso(resetsAt)}.`,
    {
      name: 'images_per_day',
      period: 'day',
      unit: 'images',
      limit,
      used,
      requested,
      resets_at: iso(resetsAt),
    },
    now,
  );
}

/** An expired key is an invalid key (401), with a message that says why. */
export function keyExpired(expiresAt: number): ApiError {
  return invalidApiKey(
    `Invalid API key: it expired at ${iso(expiresAt)}. Extend it with \`atelier keys limit ID --expires YYYY-MM-DD\` or create a new key.`,
  );
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
