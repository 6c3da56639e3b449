import type { UpstreamFailure } from '../upstream/errors';

/** What one failure means for the account that produced it. */
export type AccountVerdict =
  | { action: 'none' }
  | { action: 'cooldown'; untilMs: number; reason: string }
  | { action: 'disable'; reason: string };

export interface CooldownSettings {
  /** Used when a usage-limit reply carries no reset time. */
  defaultUsageLimitMs: number;
  defaultRateLimitMs: number;
  /** Consecutive transport/5xx failures before an account rests, and for how long. */
  failureStreak: number;
  failureRestMs: number;
}

export const DEFAULT_COOLDOWNS: CooldownSettings = {
  defaultUsageLimitMs: 5 * 60_000,
  defaultRateLimitMs: 10_000,
  failureStreak: 3,
  failureRestMs: 30_000,
};

/**
 * Deterministic answers (a 400 for a bad parameter, a model the plan lacks, a refusal) say nothing
 * about the account: cooling it for them empties the pool for everyone, a peer's top complaint.
 * Only the account's own state (its usage window, its credentials, repeated outages) does.
 */
export function judgeFailure(
  failure: UpstreamFailure,
  streak: number,
  now: number,
  settings: CooldownSettings = DEFAULT_COOLDOWNS,
): AccountVerdict {
  switch (failure.kind) {
    case 'usage_limit': {
      const until = failure.resetAt ?? now + settings.defaultUsageLimitMs;
      const when =
        failure.resetAt === null
          ? 'no reset time given; resting 5 min'
          : `resets ${new Date(until).toISOString()}`;
      return {
        action: 'cooldown',
        untilMs: until,
        reason: `usage limit reached (${when}): ${failure.message}`,
      };
    }
    case 'rate_limited':
      return {
        action: 'cooldown',
        untilMs: now + (failure.retryAfterMs ?? settings.defaultRateLimitMs),
        reason: `rate limited by the upstream: ${failure.message}`,
      };
    case 'unauthorized':
      return {
        action: 'disable',
        reason: `credentials rejected by the upstream: ${failure.message}`,
      };
    case 'network':
    case 'timeout':
      return streak >= settings.failureStreak
        ? {
            action: 'cooldown',
            untilMs: now + settings.failureRestMs,
            reason: `${streak} failures in a row; last: ${failure.message}`,
          }
        : { action: 'none' };
    case 'http':
      return failure.status >= 500 && streak >= settings.failureStreak
        ? {
            action: 'cooldown',
            untilMs: now + settings.failureRestMs,
            reason: `${streak} upstream errors in a row; last: HTTP ${failure.status} ${failure.message}`,
          }
        : { action: 'none' };
    default:
      return { action: 'none' };
  }
}

/** Failures that count towards an account's streak of outages. */
export function isOutage(failure: UpstreamFailure): boolean {
  return (
    failure.kind === 'network' ||
    failure.kind === 'timeout' ||
    (failure.kind === 'http' && failure.status >= 500)
  );
}
