import { randomUUID } from 'node:crypto';
import type { Prices } from '../billing/prices';
import { settle } from '../billing/settle';
import type { GatewayEvents } from '../core/events';
import { openRun, type RunOwner } from '../storage/runOwners';
import { recordInterrupted } from './interrupted';
import { createLogHealth, type UsageLogHealth } from './logHealth';
import { UsageNotes, type FinalStatus } from './notes';
import type { RejectedCounter } from './rejected';
import type { InCommit, NewUsageRecord, UsageRepository } from './repository';

export interface UsageWriterDeps {
  repository: UsageRepository;
  priceFor: (model: string) => Prices | null;
  events: GatewayEvents;
  /** Counts requests that never got past the key check; they are not written. */
  rejected: RejectedCounter;
  now: () => number;
  log: (line: string) => void;
  /**
   * The key limits' reservations (limits/limiter.ts): a request's ends in its record's commit, so
   * a limited request pays no commit of its own for it.
   */
  reservations?: { releaseWithRecord(requestId: string): InCommit | null };
  /** How often an unwritable log is tried again (ms). */
  retryMs?: number;
  /**
   * How long a pending row's lease lasts (ms). The run renews its rows' leases every third of it;
   * on PostgreSQL another instance records the rows of a run whose lease ended, and each writer
   * looks for such rows once per lease.
   */
  leaseMs?: number;
}

/** A pending row's lease: long enough for a stalled event loop, short enough to bill promptly. */
export const DEFAULT_PENDING_LEASE_MS = 30_000;

/**
 * The one writer of usage records: opens a request's notes, keeps a pending row while it is
 * upstream (so a crash cannot erase it), and when the request is over bills the notes, writes the
 * record once, ends the pending row in the same transaction, and announces it (`usage` event).
 *
 * When the log cannot be written (disk full, read-only), the writer fails closed: `health` says
 * so (new requests are refused before any upstream work), records of requests already running
 * are kept in memory and written once a write succeeds again, and their reservations stay held
 * until then.
 */
export interface UsageWriter {
  open(requestId: string, startedAt: number, endpoint: string): UsageNotes;
  /**
   * Writes the request's record; a second call for the same notes does nothing. Resolves once
   * the record is written or kept in memory for a later write; never rejects.
   */
  write(notes: UsageNotes, final: FinalStatus): Promise<void>;
  /** Whether the usage log takes writes, and why not. */
  readonly health: UsageLogHealth;
  /** Records kept in memory until the log takes writes again. */
  readonly unwritten: number;
  /** Resolves once every pending row told so far is written (or its write has failed). */
  pendingSaved(): Promise<void>;
  /**
   * Records the requests a stopped gateway left pending (on PostgreSQL: whose lease ended);
   * returns how many. Called at start, and on PostgreSQL once per lease.
   */
  recordInterrupted(): Promise<number>;
  /** This run is over (after the last request was written): its leases are no longer renewed. */
  close(): Promise<void>;
}

/** This run's writer, once the requests a stopped run left unfinished are recorded. */
export async function openUsageWriter(deps: UsageWriterDeps): Promise<UsageWriter> {
  const writer = createUsageWriter(deps);
  const interrupted = await writer.recordInterrupted();
  if (interrupted > 0)
    deps.log(`recorded ${interrupted} request(s) interrupted when the gateway last stopped`);
  return writer;
}

interface Unwritten {
  record: NewUsageRecord;
  costMicros: number;
}

export function createUsageWriter(deps: UsageWriterDeps): UsageWriter {
  const written = new WeakSet<UsageNotes>();
  const owner: RunOwner = { pid: process.pid, run: randomUUID() };
  const closeRun = openRun(owner);
  const leaseMs = deps.leaseMs ?? DEFAULT_PENDING_LEASE_MS;
  const unwritten = new Map<string, Unwritten>();
  /** Each request's last pending write: its record waits for it, so no pending row outlives it. */
  const pendingWrites = new Map<string, Promise<void>>();
  const health = createLogHealth({
    retryMs: deps.retryMs ?? 500,
    log: deps.log,
    // Kept records first, oldest first; with none kept, a write that changes nothing proves it.
    retry: async () => {
      for (const [requestId, kept] of unwritten) {
        await store(kept.record);
        unwritten.delete(requestId);
        announce(requestId, kept.costMicros);
      }
      if (unwritten.size === 0) await deps.repository.probe();
    },
  });

  const store = async (record: NewUsageRecord) => {
    // false: recorded already (an earlier try that reported an error after committing, or
    // another instance that took the row over once its lease had ended).
    const also = deps.reservations?.releaseWithRecord(record.requestId) ?? null;
    if (await deps.repository.complete(record, also)) deps.events.emit('usage', record.requestId);
  };
  const announce = (requestId: string, costMicros: number) => {
    deps.events.emit('settled', requestId, costMicros, true);
  };

  const savePending = (notes: UsageNotes) => {
    if (written.has(notes)) return;
    const at = deps.now();
    const admission = notes.admission;
    const pending = {
      requestId: notes.requestId,
      // The reservation's estimate: after a crash the interrupted row keeps it, so the budget
      // stays spent (what the upstream made and billed is unknown, not nothing).
      record: notes.record(
        { status: 0, errorCode: null, errorMessage: null, latencyMs: at - notes.startedAt },
        admission
          ? { costMicros: admission.costMicros, estimated: true, parts: admission.parts }
          : { costMicros: 0, estimated: false },
      ),
      attempts: notes.attempts,
      updatedAt: at,
      ownerPid: owner.pid,
      ownerRun: owner.run,
      leaseUntil: at + leaseMs,
    };
    // In order per request: a later save never lands before an earlier one.
    const before = pendingWrites.get(notes.requestId) ?? Promise.resolve();
    const saved = before
      .then(() => deps.repository.savePending(pending))
      .catch((error: unknown) => {
        // The request is under way: it goes on, and its record is kept if it cannot be written
        // either. No new request starts until the log takes writes again.
        health.failed(error, `pending usage for ${notes.requestId}`);
      });
    pendingWrites.set(notes.requestId, saved);
  };

  // While the run lives its rows' leases are renewed, and another instance takes over the rows
  // of a run that stopped renewing: on PostgreSQL, where the instances may be on other machines.
  // A SQLite file's writers are processes of this machine, judged by their process id instead,
  // so the desktop writes nothing on a timer. Unref'd: they never keep a process alive.
  const shared = deps.repository.kind === 'postgres';
  const renewal = shared
    ? setInterval(() => {
        const now = deps.now();
        deps.repository
          .renewLeases(owner.run, now + leaseMs, now)
          .catch((error: unknown) =>
            deps.log(`pending usage leases not renewed: ${String(error)}`),
          );
      }, leaseMs / 3)
    : null;
  renewal?.unref();
  let sweeping: Promise<number> | null = null;
  const recordInterruptedOnce = () =>
    (sweeping ??= recordInterrupted(deps.repository, { now: deps.now }).finally(() => {
      sweeping = null;
    }));
  const sweep = shared
    ? setInterval(() => {
        recordInterruptedOnce().then(
          (n) => {
            if (n > 0) deps.log(`recorded ${n} request(s) of a gateway instance that stopped`);
          },
          (error: unknown) => deps.log(`interrupted requests not recorded: ${String(error)}`),
        );
      }, leaseMs)
    : null;
  sweep?.unref();

  return {
    open: (requestId, startedAt, endpoint) =>
      new UsageNotes(requestId, startedAt, endpoint, savePending, deps.priceFor),

    recordInterrupted: recordInterruptedOnce,
    pendingSaved: async () => {
      await Promise.all(pendingWrites.values());
    },
    async close() {
      if (renewal) clearInterval(renewal);
      if (sweep) clearInterval(sweep);
      await Promise.all(pendingWrites.values());
      await health.stop();
      const state = health.state;
      if (unwritten.size > 0 && !state.writable) {
        // Their pending rows, where those were written, become interrupted records (with the
        // estimate) at the next start or once their lease ends; the rest is lost with this
        // process.
        deps.log(
          `${unwritten.size} usage record(s) could not be written before the gateway stopped: ${state.reason}`,
        );
      }
      closeRun();
    },
    get health() {
      return health;
    },
    get unwritten() {
      return unwritten.size;
    },

    async write(notes, final) {
      if (written.has(notes)) return;
      written.add(notes);
      const pendingWrite = pendingWrites.get(notes.requestId);
      if (pendingWrite) {
        await pendingWrite;
        pendingWrites.delete(notes.requestId);
      }
      if (!notes.isAuthenticated) {
        // Without a key nothing was dispatched or billed, and nothing may grow the database.
        deps.rejected.note();
        return;
      }
      const billed = settle(notes.work, notes.admission, deps.priceFor);
      const record = notes.record(final, billed);
      if (unwritten.size === 0) {
        try {
          await store(record);
          announce(notes.requestId, billed.costMicros);
          return;
        } catch (error) {
          health.failed(error, `usage record for ${notes.requestId}`);
        }
      }
      // Kept, in order, until a write succeeds: its reservation stays held meanwhile.
      unwritten.set(notes.requestId, { record, costMicros: billed.costMicros });
      health.retrySoon();
    },
  };
}
