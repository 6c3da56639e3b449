import type { CooldownKind } from '../../shared/admin';
import type { UpstreamFailure } from '../core/upstreamError';

/**
 * Why an account rests. The caller's answer depends on it: a used-up usage window is spec 7's 429
 * `usage_limit_reached`; a brief rest after outages is a 503 that says to retry shortly.
 */
export type { CooldownKind };

/** What one failure means for the account that produced it. */
export type AccountVerdict =
  | { action: 'none' }
  | { action: 'cooldown'; untilMs: number; reason: string; kind: CooldownKind }
  | { action: 'disable'; reason: string };

export interface CooldownSettings {
  /** Used when a usage-limit reply carries no reset time. */
  defaultUsageLimitMs: number;
  defaultRateLimitMs: number;
  /**
   * Outages (network failures, timeouts, 5xx) rest an account only on evidence across requests:
   * consecutive failures, with no success between them, from at least this many different
   * requests within the window. One request's retries are one piece of evidence, however many.
   */
  outageRequests: number;
  outageWindowMs: number;
  /** How long such an account rests: short, since the next request is the test of recovery. */
  outageRestMs: number;
}

export const DEFAULT_COOLDOWNS: CooldownSettings = {
  defaultUsageLimitMs: 5 * 60_000,
  defaultRateLimitMs: 10_000,
  outageRequests: 3,
  outageWindowMs: 60_000,
  outageRestMs: 15_000,
};

/**
 * The account's outage evidence when a failure arrives: the number of different requests whose
 * failures are in the current run (no success since, all within the window).
 */
export interface OutageEvidence {
  requests: number;
}

/**
 * Deterministic answers (a 400 for a bad parameter, a model the plan lacks, a refusal) say nothing
 * about the account: cooling it for them empties the pool for everyone, a peer's top complaint.
 * Only the account's own state (its usage window, its credentials, outages seen by several
 * requests) does.
 */
export function judgeFailure(
  failure: UpstreamFailure,
  evidence: OutageEvidence,
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
        kind: 'usage_limit',
        untilMs: until,
        reason: `usage limit reached (${when}): ${failure.message}`,
      };
    }
    case 'rate_limited':
      return {
        action: 'cooldown',
        kind: 'rate_limit',
        untilMs: now + (failure.retryAfterMs ?? settings.defaultRateLimitMs),
        reason: `rate limited by the upstream: ${failure.message}`,
      };
    case 'unauthorized':
      return {
        action: 'disable',
        reason: `credentials rejected by the upstream: ${failure.message}`,
      };
    default: {
      if (!isOutage(failure) || evidence.requests < settings.outageRequests)
        return { action: 'none' };
      const last =
        failure.kind === 'http' ? `HTTP ${failure.status} ${failure.message}` : failure.message;
      return {
        action: 'cooldown',
        kind: 'outage',
        untilMs: now + settings.outageRestMs,
        reason:
          `resting ${Math.round(settings.outageRestMs / 1000)} s after upstream errors on ` +
          `${evidence.requests} different requests in a row; last: ${last}`,
      };
    }
  }
}

/**
 * Failures that count as outage evidence against an account: the transient ones spec 7.2 retries,
 * and timeouts. A 500 is the upstream's answer to this request, not a sign the account is down.
 */
export function isOutage(failure: UpstreamFailure): boolean {
  return (
    failure.kind === 'network' ||
    failure.kind === 'timeout' ||
    (failure.kind === 'http' && [502, 503, 504].includes(failure.status))
  );
}

/**
 * Per-account runs of outage failures, keyed by the request that saw them. A success ends the
 * run; failures older than the window drop out of it.
 */
export class OutageTracker {
  private runs = new Map<string, Array<{ request: string; at: number }>>();
  constructor(private readonly settings: CooldownSettings = DEFAULT_COOLDOWNS) {}

  /** Adds one failure of `request` and returns the evidence it makes. */
  note(accountId: string, request: string, at: number): OutageEvidence {
    const since = at - this.settings.outageWindowMs;
    const run = (this.runs.get(accountId) ?? []).filter((f) => f.at > since);
    run.push({ request, at });
    this.runs.set(accountId, run);
    return { requests: new Set(run.map((f) => f.request)).size };
  }

  /** The account answered (or answered deterministically): its run of outages is over. */
  reset(accountId: string): void {
    this.runs.delete(accountId);
  }
}
