import { INTERRUPTED } from '../../shared/usageRecord';
import type { PendingUsage, UsageRepository } from './repository';

/** The gateway process and run a pending row belongs to. */
export interface UsageOwner {
  pid: number;
  run: string;
}

/** Runs of this process that are still open: their pending rows are requests under way. */
const liveRuns = new Set<string>();

export function openRun(owner: UsageOwner): () => void {
  liveRuns.add(owner.run);
  return () => liveRuns.delete(owner.run);
}

/**
 * Turns every pending row a stopped gateway left behind (kill -9, a crash, a power cut) into a
 * usage record of its own: status 500, `gateway_interrupted`, with what was known when the request
 * last went upstream (key, group, account, model, size, n, attempts). Rows of a gateway that is
 * still running (another process on the same data folder, or another run in this one) are left.
 * Each row is finished in the same transaction that writes its record, so a request is recorded
 * once whatever happens during this, and a request that was recorded already is not recorded again.
 */
export function recordInterrupted(
  repository: UsageRepository,
  isAlive: (pid: number) => boolean = processAlive,
): number {
  let recorded = 0;
  for (const pending of repository.listPending()) {
    const ownProcess = pending.ownerPid === process.pid;
    if (ownProcess ? liveRuns.has(pending.ownerRun) : isAlive(pending.ownerPid)) continue;
    if (repository.complete(interruptedRecord(pending))) recorded += 1;
  }
  return recorded;
}

export function interruptedRecord(pending: PendingUsage): PendingUsage['record'] {
  const calls = `${pending.attempts} upstream call${pending.attempts === 1 ? '' : 's'}`;
  return {
    ...pending.record,
    status: 500,
    errorCode: INTERRUPTED,
    errorMessage:
      `The gateway stopped (a crash or kill) while this request was upstream, after ${calls}. ` +
      "What the upstream made and billed is unknown: check the account's own usage.",
    latencyMs: Math.max(0, pending.updatedAt - pending.record.createdAt),
  };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
