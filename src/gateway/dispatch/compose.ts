import { setTimeout as sleep } from 'node:timers/promises';
import type { SlotLeases } from '../accounts/slotLeases';
import { SCHEDULER } from '../core/tunables';
import type { Dispatch } from './dispatchCall';
import { createUpstreamPool, type PoolDeps } from './pool';
import { DEFAULT_RETRIES, RetryBudget } from './retryPolicy';
import { Scheduler } from './scheduler';
import { sharedSlots } from './sharedSlots';
import type { TimeoutSettings } from './sizeClass';

/** Dispatch as the request path uses it: the account pool, the queue, retries and timeouts. */
export function composeDispatch(
  deps: PoolDeps & {
    timeouts: () => TimeoutSettings;
    /** A team gateway's slot leases (PostgreSQL); none for the embedded gateway. */
    slotLeases?: SlotLeases | null;
  },
): Dispatch {
  const { now } = deps;
  return {
    pool: createUpstreamPool(deps),
    scheduler: new Scheduler(SCHEDULER),
    retries: DEFAULT_RETRIES,
    budget: new RetryBudget(DEFAULT_RETRIES, now),
    now,
    sleep: (ms, signal) => sleep(ms, undefined, { signal }),
    timeouts: deps.timeouts,
    slots: deps.slotLeases ? sharedSlots(deps.slotLeases, now, deps.log) : null,
  };
}
