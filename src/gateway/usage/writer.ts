import { costMicros } from '../billing/cost';
import type { Prices } from '../billing/prices';
import type { GatewayEvents } from '../core/events';
import { randomUUID } from 'node:crypto';
import { openRun, recordInterrupted, type UsageOwner } from './interrupted';
import { UsageNotes, type FinalStatus, type PricedUsage } from './notes';
import type { RejectedCounter } from './rejected';
import type { UsageRepository } from './repository';

export interface UsageWriterDeps {
  repository: UsageRepository;
  priceFor: (model: string) => Prices | null;
  events: GatewayEvents;
  /** Counts requests that never got past the key check; they are not written. */
  rejected: RejectedCounter;
  /**
   * After the record is written (or failed to be; `recorded` says which): the key's limits
   * charge their reservation, the gallery may confirm the request's images.
   */
  onWritten?: (requestId: string, costMicros: number, recorded: boolean) => void;
  now: () => number;
  log: (line: string) => void;
}

/**
 * The one writer of usage records: opens a request's notes, keeps a pending row while it is
 * upstream (so a crash cannot erase it), and when the request is over prices the notes, writes the
 * record once, ends the pending row in the same transaction, and announces it (`usage` event).
 */
export interface UsageWriter {
  open(requestId: string, startedAt: number, endpoint: string): UsageNotes;
  /** Writes the request's record; a second call for the same notes does nothing. */
  write(notes: UsageNotes, final: FinalStatus): void;
  /** Records the requests a stopped gateway left pending; returns how many. Called at start. */
  recordInterrupted(): number;
  /** This run is over (after the last request was written). */
  close(): void;
}

/** This run's writer, once the requests a stopped run left unfinished are recorded. */
export function openUsageWriter(deps: UsageWriterDeps): UsageWriter {
  const writer = createUsageWriter(deps);
  const interrupted = writer.recordInterrupted();
  if (interrupted > 0)
    deps.log(`recorded ${interrupted} request(s) interrupted when the gateway last stopped`);
  return writer;
}

export function createUsageWriter(deps: UsageWriterDeps): UsageWriter {
  const written = new WeakSet<UsageNotes>();
  const owner: UsageOwner = { pid: process.pid, run: randomUUID() };
  const closeRun = openRun(owner);

  const savePending = (notes: UsageNotes) => {
    if (written.has(notes)) return;
    const at = deps.now();
    try {
      deps.repository.savePending({
        requestId: notes.requestId,
        record: notes.record(
          { status: 0, errorCode: null, errorMessage: null, latencyMs: at - notes.startedAt },
          0,
        ),
        attempts: notes.attempts,
        updatedAt: at,
        ownerPid: owner.pid,
        ownerRun: owner.run,
      });
    } catch (error) {
      // The pending row insures against a crash; failing to write it must not fail the request.
      deps.log(`pending usage for ${notes.requestId} could not be written: ${String(error)}`);
    }
  };

  return {
    open: (requestId, startedAt, endpoint) =>
      new UsageNotes(requestId, startedAt, endpoint, savePending),

    recordInterrupted: () => recordInterrupted(deps.repository),
    close: closeRun,

    write(notes, final) {
      if (written.has(notes)) return;
      written.add(notes);
      if (!notes.isAuthenticated) {
        // Without a key nothing was dispatched or billed, and nothing may grow the database.
        deps.rejected.note();
        return;
      }
      const cost = priceOf(notes.pricedParts, deps.priceFor);
      let recorded = false;
      try {
        deps.repository.complete(notes.record(final, cost));
        recorded = true;
        deps.events.emit('usage', notes.requestId);
      } catch (error) {
        deps.log(`usage record for ${notes.requestId} could not be written: ${String(error)}`);
      } finally {
        // Written or not, the request is over: its kept images may go to disk now.
        deps.onWritten?.(notes.requestId, cost, recorded);
        deps.events.emit('settled', notes.requestId, cost, recorded);
      }
    },
  };
}

/** A request's cost in micro-dollars: each part at its own model's price (none: free). */
export function priceOf(
  parts: readonly PricedUsage[],
  priceFor: (model: string) => Prices | null,
): number {
  let cost = 0;
  for (const part of parts) {
    const price = priceFor(part.model);
    if (price) cost += costMicros(part.usage, price);
  }
  return cost;
}
