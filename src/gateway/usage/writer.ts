import { costMicros } from '../billing/cost';
import type { Prices } from '../billing/prices';
import type { GatewayEvents } from '../events';
import { UsageNotes, type FinalStatus, type PricedUsage } from './notes';
import type { UsageRepository } from './repository';

export interface UsageWriterDeps {
  repository: UsageRepository;
  priceFor: (model: string) => Prices | null;
  events: GatewayEvents;
  /** After the record is written (or failed to be): the gallery may settle the request's images. */
  onWritten?: (requestId: string, costMicros: number) => void;
  log: (line: string) => void;
}

/**
 * The one writer of usage records: opens a request's notes, and when the request is over prices
 * them, writes the row once and announces it (`usage` event).
 */
export interface UsageWriter {
  open(requestId: string, startedAt: number, endpoint: string): UsageNotes;
  /** Writes the request's record; a second call for the same notes does nothing. */
  write(notes: UsageNotes, final: FinalStatus): void;
}

export function createUsageWriter(deps: UsageWriterDeps): UsageWriter {
  const written = new WeakSet<UsageNotes>();
  return {
    open: (requestId, startedAt, endpoint) => new UsageNotes(requestId, startedAt, endpoint),

    write(notes, final) {
      if (written.has(notes)) return;
      written.add(notes);
      const cost = priceOf(notes.pricedParts, deps.priceFor);
      try {
        deps.repository.complete(notes.record(final, cost));
        deps.events.emit('usage', notes.requestId);
      } catch (error) {
        deps.log(`usage record for ${notes.requestId} could not be written: ${String(error)}`);
      } finally {
        // Written or not, the request is over: its kept images may go to disk now.
        deps.onWritten?.(notes.requestId, cost);
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
