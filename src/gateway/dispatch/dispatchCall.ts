import { randomUUID } from 'node:crypto';
import { ERROR_TYPES } from '../../shared/errors';
import { ApiError, usageLimitReached } from '../core/errors';
import { UpstreamError, type UpstreamFailure } from '../core/upstreamError';
import type { ImageUpstream } from '../upstream/types';
import type { CooldownKind } from './cooldownPolicy';
import { failureToApiError } from './failureToApiError';
import { RestedElsewhere } from '../accounts/slotLeases';
import type { UpstreamPool } from './pool';
import { backoffMs, nextStep, type RetryBudget, type RetrySettings } from './retryPolicy';
import { QueueFullError, QueueTimeoutError, type Scheduler } from './scheduler';
import type { SharedSlots } from './sharedSlots';
import type { TimeoutSettings } from './sizeClass';

/**
 * The dispatch: what every upstream call of the request path goes through (the account pool, the
 * queue, retries and their budget, timeouts). Not undici's `Dispatcher` (an HTTP connection pool).
 */
export interface Dispatch {
  pool: UpstreamPool;
  scheduler: Scheduler;
  retries: RetrySettings;
  budget: RetryBudget;
  now: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Upstream timeouts by output size (settings: long images are normal, spec 7.1). */
  timeouts: () => TimeoutSettings;
  /**
   * A team gateway's slots shared by its instances (PostgreSQL); null for the embedded gateway,
   * whose one process holds every slot in its scheduler.
   */
  slots: SharedSlots | null;
}

export interface CallTarget {
  group: string;
  pixels: number;
  weight: number;
  signal: AbortSignal;
  /**
   * The client request this call serves, shared by all its calls (n images, ladder steps): an
   * account rests for outages only on failures from several requests. A fresh id when absent.
   */
  request?: string;
  /** Retries for outages, when not the dispatch's (the ladder moves down a step instead). */
  maxRetries?: number;
  /** Upstream calls this dispatch may still make, shared with later ladder steps; decremented. */
  calls?: CallAllowance;
  /** Accounts to use only when no other is eligible (they just failed the previous ladder step). */
  avoid?: ReadonlySet<string>;
}

export interface CallAllowance {
  left: number;
  /** Calls kept for later ladder steps: this dispatch stops failing over or retrying at it. */
  keep: number;
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
  d: Dispatch,
  target: CallTarget,
  call: (upstream: ImageUpstream) => Promise<T>,
): Promise<Attempted<T>> {
  const tried = new Set<string>(target.avoid);
  let avoiding = tried.size > 0;
  let retries = 0;
  let lastFailure: UpstreamFailure | null = null;
  const request = target.request ?? randomUUID();
  const maxRetries = target.maxRetries ?? d.retries.maxRetries;
  d.budget.noteRequest();

  for (;;) {
    const selection = { group: target.group, pixels: target.pixels, exclude: tried };
    if (avoiding && d.pool.eligible(selection).length === 0) {
      // Only the accounts to avoid are left: they are better than none.
      for (const id of target.avoid ?? []) tried.delete(id);
      avoiding = false;
    }
    if (d.pool.eligible(selection).length === 0) {
      throw nothingEligible(d, selection, lastFailure);
    }
    let lease;
    try {
      lease = await d.scheduler.acquire({
        candidates: () => {
          const eligible = d.pool.eligible(selection);
          const { slots } = d;
          return slots ? eligible.filter((a) => slots.open(a.id)) : eligible;
        },
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
    let releaseShared: (() => void) | null = null;
    if (d.slots) {
      try {
        releaseShared = await d.slots.claim(
          accountId,
          target.weight,
          d.pool.record(accountId)?.capacity ?? 1,
        );
      } catch (error) {
        lease.release();
        if (!(error instanceof RestedElsewhere)) throw error;
        // Rested by another instance, whose change notice has not arrived: read the accounts
        // again and choose again (the rest now shows, so the account is left out).
        await d.pool.reread();
        continue;
      }
      // Full across the instances: back to the queue, where it waits for a slot anywhere.
      if (!releaseShared) {
        lease.release();
        continue;
      }
    }
    try {
      const upstream = await loadUpstream(d, accountId);
      if (target.calls) target.calls.left--;
      const value = await call(upstream);
      d.pool.succeeded(accountId);
      return { value, upstream };
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      const failure = error.failure;
      lastFailure = failure;
      const unsent = isUnsent(failure);
      // A request that never left on a connection the upstream closed as it was reused (the
      // keep-alive race) says nothing about the account: no outage, no backoff. One whose
      // connection could not be made at all says the account does not answer: that counts.
      if (!unsent || (failure.kind === 'network' && failure.unreachable === true)) {
        d.pool.failed(accountId, failure, request);
        // A rest reaches a team gateway's other instances through the database: written before
        // this request goes on or is answered, so its caller's next request, on any instance,
        // finds the account resting (waits only when this failure rested the account).
        await d.pool.saved(accountId);
      }
      const step = error.final ? 'fail' : nextStep(failure);
      if (step === 'fail' || target.signal.aborted) throw error;
      if (target.calls && target.calls.left <= target.calls.keep) throw error;
      if (step === 'retry') {
        // Every second send is a retry of the request's one budget, whatever its cause.
        if (retries >= maxRetries || !d.budget.tryRetry()) throw error;
        if (!unsent) await d.sleep(backoffMs(retries, d.retries), target.signal);
        retries++;
      }
      // Prefer another account; the same one again only when it is the last one standing.
      tried.add(accountId);
      if (step === 'retry' && d.pool.eligible({ ...selection, exclude: tried }).length === 0)
        tried.delete(accountId);
    } finally {
      lease.release();
      releaseShared?.();
    }
  }
}

function isUnsent(failure: UpstreamFailure): boolean {
  return failure.kind === 'network' && failure.unsent === true;
}

/**
 * The account's adapter. Loading it can fail for reasons outside the upstream (a locked keychain):
 * the caller gets a 503 with the fix, and the account is left as it is.
 */
async function loadUpstream(d: Dispatch, accountId: string): Promise<ImageUpstream> {
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
  d: Dispatch,
  selection: { group: string; pixels: number; exclude: ReadonlySet<string> },
  lastFailure: UpstreamFailure | null,
): Error {
  const why = d.pool.explainEmpty(selection);
  if (why.reason === 'cooling') return everyAccountResting(selection.group, why, d.now());
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

/**
 * Every account of the group rests: the answer follows the one that comes back first, so it says
 * what is really going on. Only a used-up usage window is spec 7's 429 `usage_limit_reached`;
 * a brief rest after outages seen by several requests is a 503 to retry shortly.
 */
function everyAccountResting(
  group: string,
  why: { until: number; kind: CooldownKind; detail: string },
  now: number,
): ApiError {
  const seconds = Math.max(1, (why.until - now) / 1000);
  const back = new Date(why.until).toISOString();
  let error: ApiError;
  if (why.kind === 'usage_limit') {
    error = usageLimitReached(
      `Every upstream account of group '${group}' is cooling down; the first is back at ${back}.`,
      seconds,
    );
  } else {
    const outage = why.kind === 'outage';
    error = new ApiError(
      outage ? 503 : 429,
      outage
        ? `Every upstream account of group '${group}' is resting briefly after repeated upstream errors (${why.detail}); the first is back at ${back}. Retry then.`
        : `Every upstream account of group '${group}' is rate limited by the upstream; the first is back at ${back}.`,
      {
        type: outage ? ERROR_TYPES.server : ERROR_TYPES.rateLimit,
        code: outage ? 'upstream_unavailable' : 'rate_limit_exceeded',
        headers: { 'retry-after': String(Math.ceil(seconds)) },
      },
    );
  }
  if (seconds > 60) error.headers['x-should-retry'] = 'false';
  return error;
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
