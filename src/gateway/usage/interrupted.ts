import { INTERRUPTED } from '../../shared/usageRecord';
import { isOpenRun, processAlive } from '../storage/runOwners';
import type { PendingUsage, UsageRepository } from './repository';

export interface ReconcileOptions {
  /** Whether a process id is alive on this machine (SQLite: every writer is on this machine). */
  isAlive?: (pid: number) => boolean;
  /** This instance's clock, bound to the lease clock (PostgreSQL judges by its own). */
  now?: () => number;
}

/**
 * Turns every pending row a stopped gateway left behind (kill -9, a crash, a power cut) into a
 * usage record of its own: status 500, `gateway_interrupted`, with what was known when the request
 * last went upstream (key, group, account, model, size, n, attempts, the reservation's estimate).
 *
 * Which rows are left behind depends on where the writers run. A SQLite file is written by
 * processes of this machine only: a row whose process is gone is left behind, whatever its lease
 * (today's rule: the next start records it). A PostgreSQL database is shared by instances on other
 * machines, whose process ids mean nothing here: a row is left behind once its lease has ended
 * (its run renews the lease while it lives). Rows of a run still open in this process are never
 * taken. Each row is ended in the same transaction that writes its record, and only if it is still
 * there (and its lease still over): two instances reconciling at once record it once.
 */
export async function recordInterrupted(
  repository: UsageRepository,
  options: ReconcileOptions = {},
): Promise<number> {
  const isAlive = options.isAlive ?? processAlive;
  const now = (options.now ?? Date.now)();
  const shared = repository.kind === 'postgres';
  let recorded = 0;
  // PostgreSQL: the rows whose lease has ended by the database's clock (the instances' clocks
  // differ, so none judges another's lease by its own).
  const candidates = shared ? await repository.listLapsed(now) : await repository.listPending();
  for (const pending of candidates) {
    // Run ids are random: a run still open in this process is a request under way here.
    if (isOpenRun(pending.ownerRun)) continue;
    const record = interruptedRecord(pending);
    if (shared) {
      if (await repository.reconcile(pending.requestId, record, now)) recorded += 1;
    } else {
      if (pending.ownerPid !== process.pid && isAlive(pending.ownerPid)) continue;
      if (await repository.reconcile(pending.requestId, record)) recorded += 1;
    }
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
