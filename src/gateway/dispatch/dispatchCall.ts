import { ERROR_TYPES } from '../../shared/errors';
import { ApiError, usageLimitReached } from '../errors';
import { UpstreamError, type UpstreamFailure } from '../upstream/errors';
import type { ImageUpstream } from '../upstream/types';
import { failureToApiError } from './failureToApiError';
import type { UpstreamPool } from './pool';
import { backoffMs, nextStep, type RetryBudget, type RetrySettings } from './retryPolicy';
import { QueueFullError, QueueTimeoutError, type Scheduler } from './scheduler';
import type { TimeoutSettings } from './timeouts';

export interface Dispatcher {
  pool: UpstreamPool;
  scheduler: Scheduler;
  retries: RetrySettings;
  budget: RetryBudget;
  now: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Upstream timeouts by output size (settings: long images are normal, spec 7.1). */
  timeouts: () => TimeoutSettings;
}

export interface CallTarget {
  group: string;
  pixels: number;
  weight: number;
  signal: AbortSignal;
}

/** A call's result and the account that produced it. */
export interface Attempted<T> {
  value: T;
  upstream: ImageUpstream;
}

/**
 * Runs one upstream call with account choice, concurrency slots, failover and retries.
 * `call` may throw UpstreamError (classified here) or anything else (passed through untouched).
 */
export async function dispatchCall<T>(
  d: Dispatcher,
  target: CallTarget,
  call: (upstream: ImageUpstream) => Promise<T>,
): Promise<Attempted<T>> {
  const tried = new Set<string>();
  let retries = 0;
  let lastFailure: UpstreamFailure | null = null;
  d.budget.noteRequest();

  for (;;) {
    const selection = { group: target.group, pixels: target.pixels, exclude: tried };
    if (d.pool.eligible(selection).length === 0) {
      throw nothingEligible(d, selection, lastFailure);
    }
    let lease;
    try {
      lease = await d.scheduler.acquire({
        candidates: () => d.pool.eligible(selection),
        weight: target.weight,
        signal: target.signal,
      });
    } catch (error) {
      if (error instanceof QueueTimeoutError || error instanceof QueueFullError) throw busy(error);
      throw new UpstreamError({
        kind: 'cancelled',
        message: 'the request was cancelled while waiting for an account',
      });
    }
    const accountId = lease.accountId;
    try {
      const upstream = await loadUpstream(d, accountId);
      const value = await call(upstream);
      d.pool.succeeded(accountId);
      return { value, upstream };
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      const failure = error.failure;
      lastFailure = failure;
      d.pool.failed(accountId, failure);
      const step = error.final ? 'fail' : nextStep(failure);
      if (step === 'fail' || target.signal.aborted) throw error;
      if (step === 'retry') {
        if (retries >= d.retries.maxRetries || !d.budget.tryRetry()) throw error;
        await d.sleep(backoffMs(retries, d.retries), target.signal);
        retries++;
      }
      // Prefer another account; the same one again only when it is the last one standing.
      tried.add(accountId);
      if (step === 'retry' && d.pool.eligible({ ...selection, exclude: tried }).length === 0)
        tried.delete(accountId);
    } finally {
      lease.release();
    }
  }
}

/**
 * The account's adapter. Loading it can fail for reasons outside the upstream (a locked keychain):
 * the caller gets a 503 with the fix, and the account is left as it is.
 */
async function loadUpstream(d: Dispatcher, accountId: string): Promise<ImageUpstream> {
  try {
    return await d.pool.upstream(accountId);
  } catch (error) {
    if (error instanceof UpstreamError || error instanceof ApiError) throw error;
    const name = d.pool.record(accountId)?.name ?? accountId;
    throw new ApiError(
      503,
      `Upstream account '${name}' cannot be used: ${error instanceof Error ? error.message : String(error)}`,
      {
        type: ERROR_TYPES.server,
        code: 'account_unavailable',
        headers: { 'x-should-retry': 'false' },
      },
    );
  }
}

function nothingEligible(
  d: Dispatcher,
  selection: { group: string; pixels: number; exclude: ReadonlySet<string> },
  lastFailure: UpstreamFailure | null,
): Error {
  const why = d.pool.explainEmpty(selection);
  if (why.reason === 'cooling') {
    const seconds = (why.until - d.now()) / 1000;
    const error = usageLimitReached(
      `Every upstream account of group '${selection.group}' is cooling down; the first is back at ${new Date(why.until).toISOString()}.`,
      seconds,
    );
    if (seconds > 60) error.headers['x-should-retry'] = 'false';
    return error;
  }
  // When this request's own failures emptied the pool (the last account cooled or went out of
  // service), the caller learns that failure, not a vaguer "no account".
  if ((why.reason === 'all_tried' || why.reason === 'no_accounts') && lastFailure)
    return new UpstreamError(lastFailure);
  if (why.reason === 'too_large') {
    return new ApiError(
      400,
      `No upstream account of group '${selection.group}' can deliver ${selection.pixels} pixels (the largest delivers ${why.maxPixels}). ` +
        'Ask for a smaller size, add an API-key account, or enable the fallback ladder.',
      {
        type: ERROR_TYPES.invalidRequest,
        code: 'size_not_available',
        param: 'size',
        headers: { 'x-should-retry': 'false' },
      },
    );
  }
  return new ApiError(
    503,
    `No upstream account is available for group '${selection.group}'. Add or enable an account in that group.`,
    {
      type: ERROR_TYPES.server,
      code: 'no_account_available',
      headers: { 'x-should-retry': 'false' },
    },
  );
}

function busy(error: QueueTimeoutError | QueueFullError): ApiError {
  return new ApiError(429, `The gateway is at capacity: ${error.message}. Retry shortly.`, {
    type: ERROR_TYPES.rateLimit,
    code: 'gateway_busy',
    headers: { 'retry-after': '5' },
  });
}

/** Maps whatever a dispatched call threw to what the caller sees. */
export function toCallerError(error: unknown, now: number): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof UpstreamError) return failureToApiError(error.failure, now);
  return null;
}
