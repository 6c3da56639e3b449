import type { UpstreamFailure } from '../core/upstreamError';

export interface RetrySettings {
  /** Retries after the first attempt, for transport failures and 502/503/504 only (spec 7.2). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Retries allowed per minute: a floor plus a fraction of the requests in that minute. */
  budgetFloor: number;
  budgetRatio: number;
}

export const DEFAULT_RETRIES: RetrySettings = {
  maxRetries: 2,
  baseDelayMs: 250,
  maxDelayMs: 4_000,
  budgetFloor: 10,
  budgetRatio: 0.2,
};

/**
 * What to do after a failed attempt:
 * - `failover`: the account cannot serve now (usage window, rate limit, credentials): try another
 *   account straight away; bounded by the number of accounts, not by the retry count.
 * - `retry`: a transient outage: try again (on another account where one exists) after a backoff.
 * - `fail`: deterministic (400s, refusals, no image): answering now is right; a retry changes nothing.
 */
export function nextStep(failure: UpstreamFailure): 'failover' | 'retry' | 'fail' {
  switch (failure.kind) {
    case 'usage_limit':
    case 'rate_limited':
    case 'unauthorized':
      return 'failover';
    case 'network':
      return 'retry';
    case 'http':
      return failure.status === 502 || failure.status === 503 || failure.status === 504
        ? 'retry'
        : 'fail';
    default:
      return 'fail';
  }
}

/** Exponential backoff with full jitter. */
export function backoffMs(
  attempt: number,
  settings: RetrySettings,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Keeps retries a small share of traffic, so an upstream outage is not met with a multiplied
 * storm of calls.
 */
export class RetryBudget {
  private requests: number[] = [];
  private retries: number[] = [];
  constructor(
    private readonly settings: RetrySettings,
    private readonly now: () => number,
  ) {}

  noteRequest(): void {
    this.requests.push(this.now());
  }

  tryRetry(): boolean {
    const since = this.now() - 60_000;
    this.requests = this.requests.filter((t) => t > since);
    this.retries = this.retries.filter((t) => t > since);
    const allowed = this.settings.budgetFloor + this.settings.budgetRatio * this.requests.length;
    if (this.retries.length >= allowed) return false;
    this.retries.push(this.now());
    return true;
  }
}
