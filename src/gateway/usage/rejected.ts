/**
 * Requests refused before a key was accepted (401s): counted here, in memory, and never written
 * to the usage log, so a local process without a key cannot grow the database (or slow the
 * gateway with a write per request). The count per minute keeps the last hour.
 */
export interface RejectedCounter {
  note(): void;
  snapshot(): RejectedSnapshot;
}

export interface RejectedSnapshot {
  /** When counting began (the gateway's start), ms. */
  since: number;
  total: number;
  /** The last 60 minutes, oldest first: `minute` is the start of each minute with any, ms. */
  perMinute: Array<{ minute: number; count: number }>;
}

const MINUTE = 60_000;
const KEEP_MINUTES = 60;

export function createRejectedCounter(now: () => number): RejectedCounter {
  const since = now();
  let total = 0;
  // Minute start -> count; at most KEEP_MINUTES + 1 entries, whatever the traffic.
  const minutes = new Map<number, number>();
  const prune = (current: number) => {
    for (const minute of minutes.keys()) {
      if (minute <= current - KEEP_MINUTES * MINUTE) minutes.delete(minute);
    }
  };
  return {
    note() {
      const minute = Math.floor(now() / MINUTE) * MINUTE;
      total += 1;
      if (!minutes.has(minute)) prune(minute);
      minutes.set(minute, (minutes.get(minute) ?? 0) + 1);
    },
    snapshot() {
      prune(Math.floor(now() / MINUTE) * MINUTE);
      return {
        since,
        total,
        perMinute: [...minutes].map(([minute, count]) => ({ minute, count })),
      };
    },
  };
}
